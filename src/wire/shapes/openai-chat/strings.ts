import { decodeArguments } from "../../call-arguments.js";
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
 * OpenAI chat (§3): tool outputs are `{"role":"tool","tool_call_id","content"}` with string
 * content or an array of text parts; each is paired with `tool_calls[].function` of the
 * assistant turn that asked for it.
 */
export function openaiStrings(
  messages: readonly unknown[],
  scan: BodyScan,
  soFar?: StringsSoFar,
): ConversationStrings {
  const collector = new StringCollector(scan, soFar);
  return collector.read(messages, (message, index) => {
    const { role, content } = message;
    if (role === "assistant" && Array.isArray(message.tool_calls)) {
      message.tool_calls.forEach((call: unknown, callIndex: number) => {
        const parsed = toolCall(call);
        if (!parsed) return;
        collector.ask(parsed, index);
        const args =
          isRecord(call) && isRecord(call.function) ? call.function.arguments : undefined;
        collector.addCall(
          `${index}/tool_calls/${callIndex}/function/arguments`,
          args,
          index,
          parsed,
        );
      });
    }
    const tool =
      role === "tool"
        ? { call: collector.callFor(message.tool_call_id), isError: false }
        : undefined;
    const add = (path: string, text: unknown) =>
      collector.addMessageText(role, path, text, index, tool);
    if (typeof content === "string") {
      add(`${index}/content`, content);
    } else if (Array.isArray(content)) {
      content.forEach((part, partIndex) => {
        if (isRecord(part) && part.type === "text")
          add(`${index}/content/${partIndex}/text`, part.text);
      });
    }
    if (role === "user") collector.goal(contentText(content), index);
  });
}

function toolCall(call: unknown): ToolCall | undefined {
  if (!isRecord(call) || typeof call.id !== "string" || !isRecord(call.function)) return undefined;
  const { name, arguments: args } = call.function;
  if (typeof name !== "string") return undefined;
  return { id: call.id, name, input: decodeArguments(args) };
}
