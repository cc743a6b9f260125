/** Small hand-made request bodies for route tests. */

export function jsonArrayOutput(items: number): string {
  const rows = Array.from({ length: items }, (_, index) => ({
    id: index + 1,
    name: `service-${index + 1}`,
    status: index % 7 === 3 ? "degraded" : "healthy",
    region: ["us-east-1", "eu-west-1", "ap-south-1"][index % 3],
    latency_ms: 10 + ((index * 37) % 90),
  }));
  return JSON.stringify(rows, null, 2);
}

export function logOutput(lines: number, label = "build"): string {
  return Array.from(
    { length: lines },
    (_, index) =>
      `[${label}] step ${index + 1}: compiled module src/module-${index}.ts in ${index % 13}ms`,
  ).join("\n");
}

/** The agent's own tool, as agents declare it: the model can call tools (§8.1). */
export const OPENAI_TOOLS = [
  {
    type: "function",
    function: {
      name: "Bash",
      description: "Run a shell command.",
      parameters: { type: "object", properties: { command: { type: "string" } } },
    },
  },
];
export const ANTHROPIC_TOOLS = [
  {
    name: "Bash",
    description: "Run a shell command.",
    input_schema: { type: "object", properties: { command: { type: "string" } } },
  },
];

/** An OpenAI chat body with one Bash call per output, in order, declaring the Bash tool. */
export function openaiBody(
  outputs: readonly string[],
  extra: Record<string, unknown> = {},
): string {
  const messages: unknown[] = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Fix the failing build." },
  ];
  outputs.forEach((output, index) => {
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          id: `call_${index}`,
          type: "function",
          function: { name: "Bash", arguments: JSON.stringify({ command: `step ${index}` }) },
        },
      ],
    });
    messages.push({ role: "tool", tool_call_id: `call_${index}`, content: output });
  });
  return JSON.stringify({ model: "gpt-4o-mini", messages, tools: OPENAI_TOOLS, ...extra });
}

/** An Anthropic messages body with one Bash tool_use per output, in order, declaring Bash. */
export function anthropicBody(
  outputs: readonly string[],
  extra: Record<string, unknown> = {},
): string {
  const messages: unknown[] = [{ role: "user", content: "Fix the failing build." }];
  outputs.forEach((output, index) => {
    messages.push({
      role: "assistant",
      content: [
        {
          type: "tool_use",
          id: `toolu_${index}`,
          name: "Bash",
          input: { command: `step ${index}` },
        },
      ],
    });
    messages.push({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: `toolu_${index}`, content: output }],
    });
  });
  return JSON.stringify({
    model: "claude-sonnet-4-5",
    max_tokens: 1024,
    system: "You are a coding agent.",
    messages,
    tools: ANTHROPIC_TOOLS,
    ...extra,
  });
}

/** Four long build logs and a short last output: mask keeps the newest three, masks the first two. */
export const MASKABLE_OUTPUTS: readonly string[] = [
  logOutput(100, "a"),
  logOutput(100, "b"),
  logOutput(100, "c"),
  logOutput(100, "d"),
  "done",
];
