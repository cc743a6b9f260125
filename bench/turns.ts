import { isRecord } from "../src/wire/is-record.js";
import { scanBody } from "../src/wire/json-scan.js";
import { conversationKey, type Provider } from "../src/wire/types.js";

/**
 * The turns an agent sent on its way to this body: one body per tool-output boundary (after
 * the message that completes the answers to an assistant turn's tool calls), each holding the
 * messages up to there. Bytes outside `messages` (Responses: `input`), and of every kept
 * message or item, stay as they are.
 */
export function replayTurns(provider: Provider, text: string): string[] {
  const body: unknown = JSON.parse(text);
  const key = conversationKey(provider);
  const scan = scanBody(text, key);
  const span = scan?.members.get(key);
  const conversation = isRecord(body) ? body[key] : undefined;
  if (!Array.isArray(conversation) || !scan || !span) {
    throw new Error(`body has no ${key} array`);
  }
  const messages: readonly unknown[] = conversation;
  const raw = scan.messages.map((item) => text.slice(item.start, item.end));
  const turns: string[] = [];
  messages.forEach((message, index) => {
    if (!carriesToolOutput(provider, message)) return;
    if (provider !== "anthropic" && carriesToolOutput(provider, messages[index + 1])) return;
    const kept = raw.slice(0, index + 1).join(",");
    turns.push(`${text.slice(0, span.start)}[${kept}]${text.slice(span.end)}`);
  });
  return turns;
}

function carriesToolOutput(provider: Provider, message: unknown): boolean {
  if (!isRecord(message)) return false;
  if (provider === "openai") return message.role === "tool";
  if (provider === "responses") {
    return message.type === "function_call_output" || message.type === "custom_tool_call_output";
  }
  return (
    message.role === "user" &&
    Array.isArray(message.content) &&
    message.content.some((block) => isRecord(block) && block.type === "tool_result")
  );
}
