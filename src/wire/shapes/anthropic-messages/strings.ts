import { contentText } from "../../chat/content-text.js";
import { isRecord } from "../../is-record.js";
import type { BodyScan } from "../../json-scan.js";
import { type ConversationStrings, StringCollector } from "../../string-collector.js";
import type { ToolCall } from "../../types.js";

/**
 * Anthropic messages (§3): tool outputs are `tool_result` blocks inside user messages, whose
 * `content` is a string or an array of blocks; each string (or text block) is one tool output,
 * paired with the `tool_use` block of the same id. `is_error`, `cache_control`, ids, images and
 * sibling blocks are never touched: only the exact string is ever rewritten.
 */
export function anthropicStrings(
  messages: readonly unknown[],
  scan: BodyScan,
): ConversationStrings {
  const collector = new StringCollector(scan);
  const calls = new Map<string, ToolCall>();
  let goal = "";

  messages.forEach((message, index) => {
    if (!isRecord(message)) return;
    const { role, content } = message;
    const add = (path: string, text: unknown) => collector.addMessageText(role, path, text, index);
    if (typeof content === "string") {
      add(`${index}/content`, content);
    } else if (Array.isArray(content)) {
      content.forEach((block, blockIndex) => {
        if (!isRecord(block)) return;
        const path = `${index}/content/${blockIndex}`;
        if (block.type === "text") add(`${path}/text`, block.text);
        else if (block.type === "tool_use") {
          const call = rememberCall(block, calls);
          if (call) collector.addCall(`${path}/input`, block.input, index, call);
        } else if (block.type === "tool_result")
          addToolResult(block, path, index, calls, collector);
      });
    }
    if (role === "user") {
      const text = contentText(content);
      if (text !== "") goal = text;
    }
  });

  return { strings: collector.strings, calls: collector.calls, goal };
}

function rememberCall(
  block: Record<string, unknown>,
  calls: Map<string, ToolCall>,
): ToolCall | undefined {
  if (typeof block.id !== "string" || typeof block.name !== "string") return undefined;
  const call = { id: block.id, name: block.name, input: block.input };
  calls.set(block.id, call);
  return call;
}

function addToolResult(
  block: Record<string, unknown>,
  path: string,
  messageIndex: number,
  calls: Map<string, ToolCall>,
  collector: StringCollector,
): void {
  const tool = {
    call: typeof block.tool_use_id === "string" ? calls.get(block.tool_use_id) : undefined,
    isError: block.is_error === true,
  };
  const { content } = block;
  if (typeof content === "string") {
    collector.add(`${path}/content`, content, messageIndex, tool);
  } else if (Array.isArray(content)) {
    content.forEach((inner, innerIndex) => {
      if (isRecord(inner) && inner.type === "text") {
        collector.add(`${path}/content/${innerIndex}/text`, inner.text, messageIndex, tool);
      }
    });
  }
}
