import { SizedMemo } from "../pipeline/sized-memo.js";
import type { ToolCall } from "../wire/types.js";
import { type CallClass, classOfCall } from "./class-by-call.js";
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
 * Classes of outputs, their shapes remembered by text and the classes of their calls' command
 * lines by line, within `maxChars`: agents re-send the same outputs and calls every turn, and
 * reading the shape of a long output costs a scan of it, splitting a command line its parse.
 * The call decides before the shape is read, so what is remembered of a text is its shape
 * alone, whatever calls it came from. The compactor holds one within its memo budget
 * (`limits.memo_bytes`).
 */
export class ContentClasses {
  readonly #shapes: SizedMemo<ContentClass | null>;
  readonly #commands: SizedMemo<CallClass>;

  constructor(maxChars: number) {
    // Command lines are short beside outputs: a tenth of the budget holds thousands.
    this.#shapes = new SizedMemo(Math.floor(maxChars * 0.9), (text) => text.length + 64);
    this.#commands = new SizedMemo(Math.floor(maxChars * 0.1), (line) => line.length + 32);
  }

  /** The class of `text` given by `call`: classifyOutput, with the shape remembered. */
  readonly of = (text: string, call: ToolCall | undefined): ContentClass => {
    const byCall = classOfCall(call, this.#commands);
    if (byCall !== undefined && byCall !== "shell") return byCall;
    let shape = this.#shapes.get(text);
    if (shape === undefined) {
      shape = classOfShape(text) ?? null;
      this.#shapes.set(text, shape);
    }
    return shape ?? (byCall === "shell" ? "log" : "text");
  };
}
