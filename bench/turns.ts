import { isRecord } from "../src/wire/is-record.js";
import { scanBody } from "../src/wire/json-scan.js";
import { wireShape } from "../src/wire/registry.js";
import type { Provider } from "../src/wire/types.js";

/**
 * The turns an agent sent on its way to this body: one body per tool-output boundary (after
 * the message that completes the answers to an assistant turn's tool calls), each holding the
 * messages up to there. Bytes outside `messages` (Responses: `input`), and of every kept
 * message or item, stay as they are.
 */
export function replayTurns(provider: Provider, text: string): string[] {
  const body: unknown = JSON.parse(text);
  const shape = wireShape(provider);
  const key = shape.scan.conversation;
  const scan = scanBody(text, shape.scan);
  const span = scan?.members.get(key);
  const conversation = isRecord(body) ? body[key] : undefined;
  if (!Array.isArray(conversation) || !scan || !span) {
    throw new Error(`body has no ${key} array`);
  }
  const messages: readonly unknown[] = conversation;
  const raw = scan.messages.map((item) => text.slice(item.start, item.end));
  const answers = TOOL_ANSWERS[provider];
  const turns: string[] = [];
  messages.forEach((message, index) => {
    if (!answers.carries(message)) return;
    if (!answers.oneMessage && answers.carries(messages[index + 1])) return;
    const kept = raw.slice(0, index + 1).join(",");
    turns.push(`${text.slice(0, span.start)}[${kept}]${text.slice(span.end)}`);
  });
  return turns;
}

/**
 * How each shape answers an assistant turn's tool calls: the messages (items) that carry tool
 * outputs, and whether one message carries every answer of a turn (Anthropic's user message of
 * tool_result blocks) or each answer is a message of its own.
 */
const TOOL_ANSWERS: Readonly<
  Record<Provider, { carries(message: unknown): boolean; readonly oneMessage: boolean }>
> = {
  openai: { carries: (message) => isRecord(message) && message.role === "tool", oneMessage: false },
  anthropic: {
    carries: (message) =>
      isRecord(message) &&
      message.role === "user" &&
      Array.isArray(message.content) &&
      message.content.some((block) => isRecord(block) && block.type === "tool_result"),
    oneMessage: true,
  },
  responses: {
    carries: (message) =>
      isRecord(message) &&
      (message.type === "function_call_output" || message.type === "custom_tool_call_output"),
    oneMessage: false,
  },
};
