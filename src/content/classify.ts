import { commandOf } from "../components/cmdfilter/command.js";
import { SizedMemo } from "../pipeline/sized-memo.js";
import type { ToolCall } from "../wire/types.js";
import { classOfCall } from "./class-by-call.js";
import { classOfShape } from "./class-by-shape.js";
import type { ContentClass } from "./content-class.js";

/**
 * The class of one tool output (content-class.ts), from its call first and its shape second:
 * a call that names a fact class (a Read tool, `cat`, `git diff`, `grep`, …) decides; otherwise
 * the shape does (a unified diff, `path:line:` matches, a numbered listing, one JSON document, a
 * log), and what is left is `log` for a shell command and `text` for anything else.
 */
export function classifyOutput(text: string, call: ToolCall | undefined): ContentClass {
  const byCall = classOfCall(call);
  if (byCall !== undefined && byCall !== "shell") return byCall;
  return classOfShape(text) ?? (byCall === "shell" ? "log" : "text");
}

/**
 * Classes by output text, then by call, within `maxChars`: agents re-send the same outputs every
 * turn, and reading the shape of a long one costs a scan of it. The compactor holds one within
 * its memo budget (`limits.memo_bytes`).
 */
export class ContentClasses {
  readonly #memo: SizedMemo<Map<string, ContentClass>>;

  constructor(maxChars: number) {
    this.#memo = new SizedMemo(maxChars, (text, byCall) => text.length + 64 * byCall.size);
  }

  /** The class of `text` given by `call`: classifyOutput, remembered. */
  readonly of = (text: string, call: ToolCall | undefined): ContentClass => {
    const key = callKey(call);
    const held = this.#memo.get(text);
    const known = held?.get(key);
    if (known !== undefined) return known;
    const decided = classifyOutput(text, call);
    // A new map, so the memo accounts for its size as it grows.
    const byCall = new Map(held);
    byCall.set(key, decided);
    this.#memo.set(text, byCall);
    return decided;
  };
}

/** What the class depends on besides the text: the tool's name and the command it ran. */
function callKey(call: ToolCall | undefined): string {
  if (!call) return "";
  const command = commandOf(call);
  return command === undefined ? call.name : `${call.name}\u0000${command}`;
}
