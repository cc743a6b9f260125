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
  /** Set for the agent's own words (an assistant message's text), which components may read. */
  readonly byAgent?: true;
}

/**
 * The arguments of one of the agent's tool calls, located in the request text: an arguments
 * string (OpenAI, Responses: `literal: "string"`, `text` its value) or an Anthropic `input`
 * object (`literal: "json"`, `text` its JSON as sent).
 */
export interface CallArguments {
  readonly path: string;
  readonly span: Span;
  readonly text: string;
  readonly literal: "string" | "json";
  readonly messageIndex: number;
  readonly call: ToolCall;
}

/** What a wire shape finds in a conversation: its located content strings and the current goal. */
export interface ConversationStrings {
  readonly strings: ContentString[];
  /** The agent's calls whose arguments the scan located, in message order. */
  readonly calls: CallArguments[];
  /** Text of the last user message that has text: the agent's current goal. */
  readonly goal: string;
}

/** Collects located strings; a string the scan did not place is left alone (never rewritten). */
export class StringCollector {
  readonly strings: ContentString[] = [];
  readonly calls: CallArguments[] = [];

  constructor(private readonly scan: BodyScan) {}

  /**
   * Adds the arguments of `call`, held by message `messageIndex` at `path`: a string value
   * (`literal: "string"`) or, for an object, its JSON as sent. Left alone when the scan did not
   * place it, or it is neither.
   */
  addCall(path: string, value: unknown, messageIndex: number, call: ToolCall): void {
    const span = this.scan.strings.get(path);
    if (!span) return;
    if (typeof value === "string") {
      this.calls.push({ path, span, text: value, literal: "string", messageIndex, call });
    } else if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      const text = this.scan.text.slice(span.start, span.end);
      this.calls.push({ path, span, text, literal: "json", messageIndex, call });
    }
  }

  /**
   * Adds the text of a message with `role`: an assistant message's is the agent's own words
   * (`byAgent`), which components may read; `tool` marks a tool output.
   */
  addMessageText(
    role: unknown,
    path: string,
    text: unknown,
    messageIndex: number,
    tool?: ContentString["tool"],
  ): void {
    this.add(path, text, messageIndex, tool, role === "assistant");
  }

  add(
    path: string,
    text: unknown,
    messageIndex: number,
    tool?: ContentString["tool"],
    byAgent = false,
  ): void {
    if (typeof text !== "string") return;
    const span = this.scan.strings.get(path);
    if (!span) return;
    const string: ContentString = { path, span, text, messageIndex };
    this.strings.push(tool ? { ...string, tool } : byAgent ? { ...string, byAgent } : string);
  }
}
