import type { MessageView } from "../../../pipeline/types.js";
import { isRecord } from "../../is-record.js";
import { isMessage, itemText } from "./items.js";

/**
 * A Responses item as the model reads it: a message item as its role and text, a call as the
 * assistant's `call NAME(ARGUMENTS)`, a call's output as a `tool` turn; a reasoning item or any
 * other item shows nothing readable (its role is its type).
 */
export function responsesView(item: unknown, index: number): MessageView {
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
