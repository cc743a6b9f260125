import { contentText } from "../../chat/content-text.js";
import { isRecord } from "../../is-record.js";
import type { BodyScan } from "../../json-scan.js";
import {
  type ConversationStrings,
  StringCollector,
  type StringsSoFar,
} from "../../string-collector.js";
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
  soFar?: StringsSoFar,
): ConversationStrings {
  const collector = new StringCollector(scan, soFar);
  return collector.read(messages, (message, index) => {
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
          const call = toolCall(block);
          if (call) {
            collector.ask(call, index);
            collector.addCall(`${path}/input`, block.input, index, call);
          }
        } else if (block.type === "tool_result") addToolResult(block, path, index, collector);
      });
    }
    if (role === "user") collector.goal(contentText(content), index);
  });
}

function toolCall(block: Record<string, unknown>): ToolCall | undefined {
  if (typeof block.id !== "string" || typeof block.name !== "string") return undefined;
  return { id: block.id, name: block.name, input: block.input };
}

function addToolResult(
  block: Record<string, unknown>,
  path: string,
  messageIndex: number,
  collector: StringCollector,
): void {
  const tool = { call: collector.callFor(block.tool_use_id), isError: block.is_error === true };
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
