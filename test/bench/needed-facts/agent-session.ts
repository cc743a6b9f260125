import { responsesForm } from "../../../bench/responses-shape.js";
import { replayTurns } from "../../../bench/turns.js";
import type { Provider } from "../../../src/wire/types.js";

/** One step of a hand-made agent session: what the agent said and called, and what came back. */
export interface Step {
  readonly text?: string;
  readonly tool: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly output: string;
}

const SYSTEM = "You are a coding agent. The repository is at /repo.";
const TOOLS = ["Read", "Bash", "Edit"];
const parameters = { type: "object", properties: {}, additionalProperties: true };
const GOAL = "Fix the failing test in parse_config.";

/**
 * The session's final body in `provider`'s shape: system, goal, then each step's call and output;
 * the agent's tools declared (so the model could call the expand tool).
 */
export function sessionBody(provider: Provider, steps: readonly Step[]): string {
  if (provider === "responses") return responsesForm(sessionBody("openai", steps));
  if (provider === "anthropic") {
    const messages: unknown[] = [{ role: "user", content: GOAL }];
    steps.forEach((step, index) => {
      const text = step.text ? [{ type: "text", text: step.text }] : [];
      const use = { type: "tool_use", id: `toolu_${index}`, name: step.tool, input: step.input };
      messages.push({ role: "assistant", content: [...text, use] });
      const result = { type: "tool_result", tool_use_id: `toolu_${index}`, content: step.output };
      messages.push({ role: "user", content: [result] });
    });
    const tools = TOOLS.map((name) => ({ name, description: name, input_schema: parameters }));
    return JSON.stringify({ model: "claude", system: SYSTEM, messages, tools });
  }
  const messages: unknown[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: GOAL },
  ];
  steps.forEach((step, index) => {
    const call = {
      id: `call_${index}`,
      type: "function",
      function: { name: step.tool, arguments: JSON.stringify(step.input) },
    };
    messages.push({ role: "assistant", content: step.text ?? null, tool_calls: [call] });
    messages.push({ role: "tool", tool_call_id: `call_${index}`, content: step.output });
  });
  const tools = TOOLS.map((name) => ({
    type: "function",
    function: { name, description: name, parameters },
  }));
  return JSON.stringify({ model: "gpt", messages, tools });
}

/** The session's turns in `provider`'s shape (bench/turns.ts): one body per step. */
export function sessionTurns(provider: Provider, steps: readonly Step[]): string[] {
  return replayTurns(provider, sessionBody(provider, steps));
}

/** A numbered file view as a Read tool shows it (`     1→line`). */
export function fileView(lines: readonly string[], first = 1): string {
  return lines.map((line, index) => `${String(first + index).padStart(6)}→${line}`).join("\n");
}
