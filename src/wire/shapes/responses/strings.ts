import { decodeArguments } from "../../call-arguments.js";
import { isRecord } from "../../is-record.js";
import type { BodyScan } from "../../json-scan.js";
import {
  type ConversationStrings,
  StringCollector,
  type StringsSoFar,
} from "../../string-collector.js";
import type { ToolCall } from "../../types.js";
import { isMessage, isTextPart, itemText } from "./items.js";

/**
 * OpenAI Responses (§3): the conversation is the `input` array of items. Tool outputs are
 * `function_call_output` and `custom_tool_call_output` items whose `output` is a string or an
 * array of `input_text` parts; each string is one tool output, paired by `call_id` with the
 * `function_call` (`name`, `arguments`) or `custom_tool_call` (`name`, `input`) item that asked
 * for it. Message items' text is counted; `reasoning`, `compaction` and any other item type are
 * never read, so their bytes (`encrypted_content` included) stay as the client sent them.
 */
export function responsesStrings(
  items: readonly unknown[],
  scan: BodyScan,
  soFar?: StringsSoFar,
): ConversationStrings {
  const collector = new StringCollector(scan, soFar);
  return collector.read(items, (item, index) => {
    const { type } = item;
    if (type === "function_call" || type === "custom_tool_call") {
      const call = toolCall(item);
      if (!call) return;
      collector.ask(call, index);
      const key = type === "function_call" ? "arguments" : "input";
      collector.addCall(`${index}/${key}`, item[key], index, call);
    } else if (type === "function_call_output" || type === "custom_tool_call_output") {
      const tool = { call: collector.callFor(item.call_id), isError: false };
      const { output } = item;
      if (typeof output === "string") {
        collector.add(`${index}/output`, output, index, tool);
      } else if (Array.isArray(output)) {
        output.forEach((part, partIndex) => {
          if (isRecord(part) && part.type === "input_text") {
            collector.add(`${index}/output/${partIndex}/text`, part.text, index, tool);
          }
        });
      }
    } else if (isMessage(item)) {
      const { content } = item;
      const add = (path: string, text: unknown) =>
        collector.addMessageText(item.role, path, text, index);
      if (typeof content === "string") {
        add(`${index}/content`, content);
      } else if (Array.isArray(content)) {
        content.forEach((part, partIndex) => {
          if (isTextPart(part)) add(`${index}/content/${partIndex}/text`, part.text);
        });
      }
      if (item.role === "user") collector.goal(itemText(item), index);
    }
  });
}

function toolCall(item: Record<string, unknown>): ToolCall | undefined {
  const { call_id: id, name } = item;
  if (typeof id !== "string" || typeof name !== "string") return undefined;
  if (item.type === "custom_tool_call") return { id, name, input: item.input };
  return { id, name, input: decodeArguments(item.arguments) };
}
