import type { ModelPrompt } from "../../model/protocol.js";
import type { MessageView, OptionsOf } from "../../pipeline/types.js";

type Level = OptionsOf<"summarize">["level"];

const LEVELS: Readonly<Record<Level, { length: string; keep: string; maxTokens: number }>> = {
  concise: {
    length: "at most 120 words",
    keep: "the task, what has been done, the current state and what remains",
    maxTokens: 400,
  },
  regular: {
    length: "at most 350 words",
    keep:
      "the task, decisions and their reasons, files read or changed, commands run and their " +
      "outcomes, errors met, the current state and what remains",
    maxTokens: 900,
  },
  detailed: {
    length: "at most 900 words",
    keep:
      "the task, every decision and its reason, exact file paths and identifiers, commands and " +
      "their outcomes, exact error messages and numbers, the current state and open questions",
    maxTokens: 2000,
  },
};

/** Budget for the rendered transcript in the prompt; longer messages keep their head and tail. */
const MAX_PROMPT_CHARS = 400_000;
const MIN_MESSAGE_CHARS = 400;

/** The question for a span of messages at a summary level (concise, regular, detailed). */
export function summaryPrompt(level: Level, messages: readonly MessageView[]): ModelPrompt {
  const { length, keep, maxTokens } = LEVELS[level];
  const system = [
    "You condense the middle of a conversation between a user and an agent into notes the",
    `agent will continue from. Write ${length} of plain text, no preamble. Keep ${keep}.`,
    "State only what the messages say; never invent. Write no <<cg:...>> markers.",
  ].join(" ");
  const budget = Math.max(MIN_MESSAGE_CHARS, Math.floor(MAX_PROMPT_CHARS / messages.length));
  const rendered = messages.map(
    (message, position) =>
      `[${position + 1}] ${message.role || "message"}:\n${clip(message.text, budget)}`,
  );
  return {
    system,
    user: `Messages to condense:\n\n${rendered.join("\n\n")}`,
    maxTokens,
  };
}

function clip(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const half = Math.floor(budget / 2);
  return `${text.slice(0, half)}\n… (${text.length - 2 * half} characters omitted) …\n${text.slice(-half)}`;
}
