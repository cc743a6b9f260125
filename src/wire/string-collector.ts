import type { BodyScan } from "./json-scan.js";
import type { Span, ToolCall } from "./types.js";

/** One string of message content, located in the request text. */
export interface ContentString {
  readonly path: string;
  readonly span: Span;
  readonly text: string;
  readonly messageIndex: number;
  /** Set for tool outputs; other strings (user and assistant text) are only counted. */
  readonly tool?: { readonly call: ToolCall | undefined; readonly isError: boolean };
}

/** What a wire shape finds in a conversation: its located content strings and the current goal. */
export interface ConversationStrings {
  readonly strings: ContentString[];
  /** Text of the last user message that has text: the agent's current goal. */
  readonly goal: string;
}

/** Collects located strings; a string the scan did not place is left alone (never rewritten). */
export class StringCollector {
  readonly strings: ContentString[] = [];

  constructor(private readonly scan: BodyScan) {}

  add(path: string, text: unknown, messageIndex: number, tool?: ContentString["tool"]): void {
    if (typeof text !== "string") return;
    const span = this.scan.strings.get(path);
    if (!span) return;
    this.strings.push(
      tool ? { path, span, text, messageIndex, tool } : { path, span, text, messageIndex },
    );
  }
}
