import {
  arrayElements,
  objectMembers,
  type Slice,
  sliceText,
  topLevelMembers,
} from "./json-slices.js";

/** The two wire shapes the CLIs speak: Anthropic Messages (Claude Code), OpenAI Responses (Codex). */
export type Shape = "anthropic" | "responses";

/** One message (Anthropic) or input item (Responses), with its exact text. */
export interface ConversationItem {
  readonly raw: string;
  readonly value: unknown;
  readonly role: string | undefined;
  /** The Responses item type (`message`, `function_call_output`, …); `message` for Anthropic. */
  readonly type: string;
}

/** One string of a tool output (a whole string output, or one text block / input_text part). */
export interface OutputString {
  /** The tool call it answers: `tool_use_id` or `call_id`. */
  readonly callId: string;
  /** Which string of the output: -1 for a string output, else the block's index. */
  readonly part: number;
  readonly text: string;
  readonly item: number;
}

export interface ToolCallView {
  readonly callId: string;
  readonly name: string;
  /** The call's arguments as sent: `input` as JSON text, `arguments`, or a custom tool's input. */
  readonly input: string;
  readonly item: number;
}

/** What the harness reads of one request body. */
export interface RequestView {
  readonly shape: Shape;
  readonly text: string;
  readonly body: Record<string, unknown>;
  readonly items: readonly ConversationItem[];
  readonly toolNames: readonly string[];
  /** Exact text of `tools`, and of `system` (Anthropic) or `instructions` (Responses). */
  readonly rawTools: string | undefined;
  readonly rawSystem: string | undefined;
  readonly outputs: readonly OutputString[];
  readonly calls: readonly ToolCallView[];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const stringOf = (value: unknown): string | undefined =>
  typeof value === "string" ? value : undefined;

/** Reads a request body; undefined when it is not a JSON object. */
export function readRequest(shape: Shape, text: string): RequestView | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(body)) return undefined;
  const members = topLevelMembers(text);
  const slice = (key: string): Slice | undefined => members.get(key);
  const conversation = slice(shape === "anthropic" ? "messages" : "input");
  const items = (conversation ? arrayElements(text, conversation) : []).map((element) => {
    const raw = sliceText(text, element);
    const value: unknown = JSON.parse(raw);
    const record = isRecord(value) ? value : {};
    return {
      raw,
      value,
      role: stringOf(record.role),
      type: shape === "anthropic" ? "message" : (stringOf(record.type) ?? "message"),
    };
  });
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const toolsSlice = slice("tools");
  const systemSlice = slice(shape === "anthropic" ? "system" : "instructions");
  return {
    shape,
    text,
    body,
    items,
    toolNames: tools.map((tool) => (isRecord(tool) ? (stringOf(tool.name) ?? "") : "")),
    rawTools: toolsSlice && sliceText(text, toolsSlice),
    rawSystem: systemSlice && sliceText(text, systemSlice),
    outputs: items.flatMap((item, index) => outputStrings(shape, item.value, index)),
    calls: items.flatMap((item, index) => toolCalls(shape, item.value, index)),
  };
}

function partsOf(content: unknown, callId: string, item: number): OutputString[] {
  if (typeof content === "string") return [{ callId, part: -1, text: content, item }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((block, part) =>
    isRecord(block) && typeof block.text === "string"
      ? [{ callId, part, text: block.text, item }]
      : [],
  );
}

function outputStrings(shape: Shape, value: unknown, item: number): OutputString[] {
  if (!isRecord(value)) return [];
  if (shape === "responses") {
    const callId = stringOf(value.call_id);
    if (callId === undefined) return [];
    if (value.type !== "function_call_output" && value.type !== "custom_tool_call_output") {
      return [];
    }
    return partsOf(value.output, callId, item);
  }
  if (!Array.isArray(value.content)) return [];
  return value.content.flatMap((block) => {
    if (!isRecord(block) || block.type !== "tool_result") return [];
    const callId = stringOf(block.tool_use_id);
    return callId === undefined ? [] : partsOf(block.content, callId, item);
  });
}

function toolCalls(shape: Shape, value: unknown, item: number): ToolCallView[] {
  if (!isRecord(value)) return [];
  if (shape === "responses") {
    const callId = stringOf(value.call_id);
    const name = stringOf(value.name);
    if (callId === undefined || name === undefined) return [];
    if (value.type === "function_call") {
      return [{ callId, name, input: stringOf(value.arguments) ?? "", item }];
    }
    if (value.type === "custom_tool_call") {
      return [{ callId, name, input: stringOf(value.input) ?? "", item }];
    }
    return [];
  }
  if (value.role !== "assistant" || !Array.isArray(value.content)) return [];
  return value.content.flatMap((block) => {
    if (!isRecord(block) || block.type !== "tool_use") return [];
    const callId = stringOf(block.id);
    const name = stringOf(block.name);
    if (callId === undefined || name === undefined) return [];
    return [{ callId, name, input: JSON.stringify(block.input ?? {}), item }];
  });
}

/** The text of the last user message (text blocks / input_text parts joined), or "". */
export function lastUserText(view: RequestView): string {
  for (let index = view.items.length - 1; index >= 0; index--) {
    const item = view.items[index];
    if (item?.role !== "user" || item.type !== "message") continue;
    const text = textOf(item.value);
    if (text !== "") return text;
  }
  return "";
}

/** The plain text of a message: its string content, or its text parts joined. */
export function textOf(value: unknown): string {
  if (!isRecord(value)) return "";
  const { content } = value;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) =>
      isRecord(part) && (part.type === "text" || part.type === "input_text") ? part.text : "",
    )
    .filter((text): text is string => typeof text === "string")
    .join("\n");
}

/** The exact text of one member of an item (`content`, `output`, …), when it has it. */
export function memberText(raw: string, key: string): string | undefined {
  const member = objectMembers(raw, { start: 0, end: raw.length }).get(key);
  return member && sliceText(raw, member);
}
