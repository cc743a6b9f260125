import type { ModelPrompt } from "../../model/protocol.js";
import type { ToolCall } from "../../wire/types.js";

const SYSTEM = [
  "You pick the lines of a tool output that matter for the user's current task.",
  'Answer with JSON only: {"ranges":[[first,last],...]} using the 1-based line numbers shown,',
  "both ends inclusive, in increasing order, not overlapping.",
  "Keep every line the task needs: errors and their stack frames, failing tests, the relevant",
  "code, file paths, counts and final summaries. Leave out noise. Never rewrite a line.",
].join(" ");

/** Longest rendering of the tool call shown to the model. */
const MAX_CALL_CHARS = 500;
/** Upper bound on the answer: a list of ranges is short. */
const MAX_ANSWER_TOKENS = 1024;

/** The question for one output: the goal, the call that produced it, and its numbered lines. */
export function selectionPrompt(
  goal: string,
  call: ToolCall | undefined,
  lines: readonly string[],
): ModelPrompt {
  const numbered = lines.map((line, index) => `${index + 1}| ${line}`).join("\n");
  const parts = [`Task:\n${goal}`];
  if (call) {
    const input = JSON.stringify(call.input) ?? "";
    parts.push(`Tool call: ${call.name} ${input}`.slice(0, MAX_CALL_CHARS));
  }
  parts.push(`Output (${lines.length} lines):\n${numbered}`);
  return { system: SYSTEM, user: parts.join("\n\n"), maxTokens: MAX_ANSWER_TOKENS };
}
