import { escapedString, RawJson, serialize } from "./json-text.js";
import type { ScriptStep } from "./script.js";

/** What every checkpoint of one session shares: its prompts and its body-level details. */
export interface SessionFrame {
  readonly system: string;
  readonly goal: string;
  /** Indentation of the body text (0 = compact, as SDKs send it). */
  readonly indent: number;
  /** A per-session number beyond 2^53, written verbatim. */
  readonly bigSeed: string;
  readonly userId: string;
}

const READ_SCHEMA = {
  type: "object",
  properties: {
    file_path: { type: "string", description: "Absolute path of the file" },
    offset: { type: "integer" },
    limit: { type: "integer" },
  },
  required: ["file_path"],
};
const BASH_SCHEMA = {
  type: "object",
  properties: {
    command: { type: "string" },
    timeout: { type: "number", minimum: new RawJson("0.0"), maximum: new RawJson("6e5") },
    run_id: { type: "integer", maximum: new RawJson("18446744073709551615") },
  },
  required: ["command"],
};
const TOOLS = [
  { name: "Read", description: "Read a file from the local filesystem.", schema: READ_SCHEMA },
  { name: "Bash", description: "Run a shell command and return its output.", schema: BASH_SCHEMA },
];

/** An OpenAI chat completions body holding the first `steps` steps of the script. */
export function openaiBody(frame: SessionFrame, steps: readonly ScriptStep[]): string {
  const messages: unknown[] = [
    { role: "system", content: frame.system },
    { role: "user", content: escapedString(frame.goal) },
  ];
  steps.forEach((step, stepIndex) => {
    const ids = step.calls.map((_, callIndex) => `call_${stepIndex}_${callIndex}`);
    messages.push({
      role: "assistant",
      content: step.text === "" ? null : step.text,
      tool_calls: step.calls.map((call, callIndex) => ({
        id: ids[callIndex],
        type: "function",
        function: { name: call.tool, arguments: JSON.stringify(call.input) },
      })),
    });
    step.calls.forEach((call, callIndex) => {
      // Some clients send text parts; some put content before role. Both are valid.
      const content =
        (stepIndex + callIndex) % 5 === 4 ? [{ type: "text", text: call.output }] : call.output;
      messages.push(
        stepIndex % 2 === 0
          ? { role: "tool", tool_call_id: ids[callIndex], content }
          : { content, role: "tool", tool_call_id: ids[callIndex] },
      );
    });
  });
  return serialize(
    {
      model: "gpt-4o-2024-08-06",
      messages,
      tools: TOOLS.map((tool) => ({
        type: "function",
        function: { name: tool.name, description: tool.description, parameters: tool.schema },
      })),
      tool_choice: "auto",
      temperature: new RawJson("1.0"),
      top_p: new RawJson("1e0"),
      seed: new RawJson(frame.bigSeed),
      max_completion_tokens: new RawJson("4096"),
      stream: false,
    },
    frame.indent,
  );
}

/** An Anthropic messages body holding the first `steps` steps of the script. */
export function anthropicBody(frame: SessionFrame, steps: readonly ScriptStep[]): string {
  const messages: unknown[] = [
    { role: "user", content: [{ type: "text", text: escapedString(frame.goal) }] },
  ];
  steps.forEach((step, stepIndex) => {
    const ids = step.calls.map((_, callIndex) => `toolu_${stepIndex}_${callIndex}`);
    const text = step.text === "" ? [] : [{ type: "text", text: step.text }];
    messages.push({
      role: "assistant",
      content: [
        ...text,
        ...step.calls.map((call, callIndex) => ({
          type: "tool_use",
          id: ids[callIndex],
          name: call.tool,
          input: call.input,
        })),
      ],
    });
    messages.push({
      role: "user",
      content: step.calls.map((call, callIndex) => ({
        type: "tool_result",
        tool_use_id: ids[callIndex],
        content:
          (stepIndex + callIndex) % 5 === 4 ? [{ type: "text", text: call.output }] : call.output,
        ...(call.isError ? { is_error: true } : {}),
      })),
    });
  });
  return serialize(
    {
      model: "claude-sonnet-4-5-20250929",
      max_tokens: new RawJson("8192"),
      system: [{ type: "text", text: frame.system, cache_control: { type: "ephemeral" } }],
      messages,
      tools: TOOLS.map((tool) => ({
        name: tool.name,
        description: tool.description,
        input_schema: tool.schema,
      })),
      temperature: new RawJson("1.0"),
      top_k: new RawJson("1e2"),
      metadata: { user_id: frame.userId },
    },
    frame.indent,
  );
}
