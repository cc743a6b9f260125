import type { MessagesView, MessageView } from "../pipeline/types.js";
import { contentText } from "./chat/content-text.js";
import { isRecord } from "./is-record.js";
import type { BodyScan } from "./json-scan.js";
import { isMessage, itemText } from "./responses.js";
import type { Provider } from "./types.js";

/**
 * Whether messages-scoped components (summaries, which put one message in place of a run) may
 * run on a wire format. Not on Responses: its items are never added, removed or reordered (§3)
 * — a reasoning item must keep the item that follows it, a function_call its output — so there
 * such a component is reported unavailable and every item goes on as received.
 */
export function replacesMessages(provider: Provider): boolean {
  return provider !== "responses";
}

/**
 * The messages (Responses: items) of a request for messages-scoped components and the cost
 * replay's prompt rendering: each message's role, a text
 * rendering of what the model reads, the tool calls it makes and answers, and the raw JSON of
 * any run of messages (from the scan's element spans, so it is exactly the client's bytes).
 */
export function messagesView(
  provider: Provider,
  messages: readonly unknown[],
  scan: BodyScan,
  text: string,
): MessagesView {
  const render = RENDERERS[provider];
  return {
    messages: messages.map((message, index) => render(message, index)),
    raw(from, to) {
      const first = scan.messages[from];
      const last = scan.messages[to - 1];
      if (!first || !last || to <= from) throw new RangeError(`no messages ${from}..${to}`);
      return text.slice(first.start, last.end);
    },
  };
}

function openaiView(message: unknown, index: number): MessageView {
  if (!isRecord(message)) return { index, role: "", text: "", callIds: [], resultIds: [] };
  const role = typeof message.role === "string" ? message.role : "";
  const parts: string[] = [];
  const content = contentText(message.content);
  if (content !== "") parts.push(content);
  const callIds: string[] = [];
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls) {
      if (!isRecord(call)) continue;
      if (typeof call.id === "string") callIds.push(call.id);
      const fn = isRecord(call.function) ? call.function : {};
      const name = typeof fn.name === "string" ? fn.name : "?";
      const args = typeof fn.arguments === "string" ? fn.arguments : JSON.stringify(fn.arguments);
      parts.push(`call ${name}(${args ?? ""})`);
    }
  }
  const resultIds =
    role === "tool" && typeof message.tool_call_id === "string" ? [message.tool_call_id] : [];
  return { index, role, text: parts.join("\n"), callIds, resultIds };
}

function anthropicView(message: unknown, index: number): MessageView {
  if (!isRecord(message)) return { index, role: "", text: "", callIds: [], resultIds: [] };
  const role = typeof message.role === "string" ? message.role : "";
  const { content } = message;
  if (!Array.isArray(content)) {
    return { index, role, text: contentText(content), callIds: [], resultIds: [] };
  }
  const parts: string[] = [];
  const callIds: string[] = [];
  const resultIds: string[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block.type === "text" && typeof block.text === "string") parts.push(block.text);
    else if (block.type === "tool_use") {
      if (typeof block.id === "string") callIds.push(block.id);
      const name = typeof block.name === "string" ? block.name : "?";
      parts.push(`call ${name}(${JSON.stringify(block.input) ?? ""})`);
    } else if (block.type === "tool_result") {
      if (typeof block.tool_use_id === "string") resultIds.push(block.tool_use_id);
      const label = block.is_error === true ? "tool error" : "tool result";
      parts.push(`${label}: ${contentText(block.content)}`);
    } else if (block.type === "image" || block.type === "document") {
      parts.push(`[${block.type}]`);
    }
  }
  return { index, role, text: parts.join("\n"), callIds, resultIds };
}

/**
 * A Responses item as the model reads it: a message item as its role and text, a call as the
 * assistant's `call NAME(ARGUMENTS)`, a call's output as a `tool` turn; a reasoning item or any
 * other item shows nothing readable (its role is its type).
 */
function responsesView(item: unknown, index: number): MessageView {
  if (!isRecord(item)) return { index, role: "", text: "", callIds: [], resultIds: [] };
  const callId = typeof item.call_id === "string" ? [item.call_id] : [];
  if (isMessage(item)) {
    const role = typeof item.role === "string" ? item.role : "";
    return { index, role, text: itemText(item), callIds: [], resultIds: [] };
  }
  if (item.type === "function_call" || item.type === "custom_tool_call") {
    const args = item.type === "function_call" ? item.arguments : item.input;
    const text = `call ${String(item.name)}(${typeof args === "string" ? args : ""})`;
    return { index, role: "assistant", text, callIds: callId, resultIds: [] };
  }
  if (item.type === "function_call_output" || item.type === "custom_tool_call_output") {
    const { output } = item;
    const text = Array.isArray(output) ? itemText({ content: output }) : String(output ?? "");
    return { index, role: "tool", text, callIds: [], resultIds: callId };
  }
  return { index, role: String(item.type), text: "", callIds: [], resultIds: [] };
}

const RENDERERS: Readonly<Record<Provider, (message: unknown, index: number) => MessageView>> = {
  openai: openaiView,
  anthropic: anthropicView,
  responses: responsesView,
};
