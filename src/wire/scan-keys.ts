/**
 * The keys the body scanner (json-scan.ts) tells apart inside a conversation's messages, as bits
 * a container may hold once each, and the paths it records strings under.
 */

/** Bits of the keys a container may hold once; a repeat makes the scan ambiguous. */
export const KEY_CONTENT = 1;
export const KEY_TEXT = 2;
/** A Responses item's `output` (function_call_output, custom_tool_call_output). */
export const KEY_OUTPUT = 4;
/** An OpenAI assistant message's `tool_calls`. */
export const KEY_TOOL_CALLS = 8;
/** A Responses function_call's `arguments`. */
export const KEY_ARGUMENTS = 16;
/** An Anthropic tool_use block's `input` object; a Responses custom_tool_call's `input` string. */
export const KEY_INPUT = 32;

export const KEY_NAMES: Readonly<Record<number, string>> = {
  [KEY_CONTENT]: "content",
  [KEY_TEXT]: "text",
  [KEY_OUTPUT]: "output",
  [KEY_TOOL_CALLS]: "tool_calls",
  [KEY_ARGUMENTS]: "arguments",
  [KEY_INPUT]: "input",
};

/** The bit of a decoded key (`outputs`: whether an item's `output` is rewritable). */
export function keyBitOf(key: string, outputs: boolean): number {
  for (const [bit, name] of Object.entries(KEY_NAMES)) {
    if (name === key && (name !== "output" || outputs)) return Number(bit);
  }
  return 0;
}

export function path(
  message: number,
  block: number,
  inner: number,
  parent: string,
  key: string,
): string {
  if (block < 0) return `${message}/${key}`;
  if (inner < 0) return `${message}/${parent}/${block}/${key}`;
  return `${message}/${parent}/${block}/content/${inner}/${key}`;
}
