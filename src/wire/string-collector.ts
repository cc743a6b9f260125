import { isRecord } from "./is-record.js";
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
  readonly strings: readonly ContentString[];
  /** The agent's calls whose arguments the scan located, in message order. */
  readonly calls: readonly CallArguments[];
  /** Text of the last user message that has text: the agent's current goal. */
  readonly goal: string;
  /** Every call the conversation asks for (located or not), by the message that asks. */
  readonly asked: readonly { readonly messageIndex: number; readonly call: ToolCall }[];
  /** Each user message's text where it has any, by message: the goal as it stood there. */
  readonly goals: readonly { readonly messageIndex: number; readonly text: string }[];
}

/**
 * What a conversation's first `shared` messages were found to hold, by an earlier read of the
 * same bytes (a warm turn re-sends its history): a reader goes on from message `shared`.
 */
export interface StringsSoFar {
  readonly found: ConversationStrings;
  readonly shared: number;
}

/**
 * Collects located strings; a string the scan did not place is left alone (never rewritten). It
 * holds what a reader carries from message to message (the calls asked for so far, the goal), so
 * a reader may start at `from`, the messages before read already (`soFar`).
 */
export class StringCollector {
  readonly strings: ContentString[];
  readonly calls: CallArguments[];
  /** The first message the reader reads: those before it are `soFar`'s. */
  readonly from: number;
  readonly #asked: Array<ConversationStrings["asked"][number]>;
  readonly #goals: Array<ConversationStrings["goals"][number]>;
  readonly #byId = new Map<string, ToolCall>();

  constructor(
    private readonly scan: BodyScan,
    soFar?: StringsSoFar,
  ) {
    const from = soFar?.shared ?? 0;
    const found = soFar?.found;
    const before = (item: { readonly messageIndex: number }) => item.messageIndex < from;
    this.from = from;
    this.strings = found ? takeWhile(found.strings, before) : [];
    this.calls = found ? takeWhile(found.calls, before) : [];
    this.#asked = found ? takeWhile(found.asked, before) : [];
    this.#goals = found ? takeWhile(found.goals, before) : [];
    for (const { call } of this.#asked) this.#byId.set(call.id, call);
  }

  /** Records a call message `messageIndex` asks for, which later tool outputs answer by id. */
  ask(call: ToolCall, messageIndex: number): void {
    this.#byId.set(call.id, call);
    this.#asked.push({ messageIndex, call });
  }

  /** The call asked for so far under `id`. */
  callFor(id: unknown): ToolCall | undefined {
    return typeof id === "string" ? this.#byId.get(id) : undefined;
  }

  /** Records a user message's text: the goal from there on, unless empty. */
  goal(text: string, messageIndex: number): void {
    if (text !== "") this.#goals.push({ messageIndex, text });
  }

  /**
   * Reads `items` from `from` on, each object one with its index (`visit`), and returns what was
   * found, the messages before `from` included: the loop every shape's reader runs.
   */
  read(
    items: readonly unknown[],
    visit: (item: Record<string, unknown>, index: number) => void,
  ): ConversationStrings {
    for (let index = this.from; index < items.length; index++) {
      const item = items[index];
      if (isRecord(item)) visit(item, index);
    }
    return this.#found();
  }

  /** What the reader found, the messages before `from` included. */
  #found(): ConversationStrings {
    return {
      strings: this.strings,
      calls: this.calls,
      goal: this.#goals.at(-1)?.text ?? "",
      asked: this.#asked,
      goals: this.#goals,
    };
  }

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

/** The leading items of `items` (in message order) that `keep` holds for, as a new array. */
function takeWhile<T>(items: readonly T[], keep: (item: T) => boolean): T[] {
  let low = 0;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keep(items[middle] as T)) low = middle + 1;
    else high = middle;
  }
  return items.slice(0, low);
}
