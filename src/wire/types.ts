import type { ContentClass } from "../content/content-class.js";
import type { SHAPES } from "./registry.js";

/**
 * The name of a wire shape (§3), one per registry line (registry.ts): `openai` (chat),
 * `anthropic` (messages), `responses` (OpenAI Responses).
 */
export type Provider = (typeof SHAPES)[number]["name"];

/** An upstream API family (a configured `upstream.<name>`): Responses bodies go to OpenAI's. */
export type Upstream = "openai" | "anthropic";

/** The call that produced a tool output (§3): the tool's name and its parsed arguments. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  /** Parsed arguments (`tool_use.input`, or `function.arguments` decoded); undefined if unparseable. */
  readonly input: unknown;
}

/**
 * One tool output as the components see it: a single string of the request body. A component
 * that changes the agent's calls (`slots: "call"`) sees each call's arguments the same way.
 */
export interface ToolOutput {
  /** Position among the request's tool outputs (calls), 0-based, in message order. */
  readonly index: number;
  /** Index of the message (Responses: item) that holds it in the conversation array. */
  readonly messageIndex: number;
  readonly text: string;
  readonly call: ToolCall | undefined;
  /** Anthropic `is_error: true` on the tool_result. */
  readonly isError: boolean;
  /** What the output is (src/content/), decided once from the text as received and its call. */
  readonly contentClass: ContentClass;
  /** A call: whether its result is in the conversation (an action already done). */
  readonly answered?: boolean;
}

/**
 * What a slot holds (§3): a tool output, or the arguments of one of the agent's tool calls
 * (`mask_calls` is the one component that changes those, §5).
 */
export type SlotKind = "output" | "call";

/**
 * One value of the request the pipeline may change, located in its text: what it is, where it
 * lives, its text and its call. A tool output's call is the one that produced it; a call's is
 * itself.
 */
export interface Slot extends ToolOutput {
  readonly kind: SlotKind;
  /** Where its value sits in the request text. */
  readonly span: Span;
  /**
   * How a new text is written over `span`: as a JSON string literal (a tool output, an OpenAI
   * `arguments` string), or as the JSON text itself (an Anthropic `tool_use.input` object).
   */
  readonly literal: "string" | "json";
}

/** A half-open range of UTF-16 offsets into the request text. */
export interface Span {
  readonly start: number;
  readonly end: number;
}
