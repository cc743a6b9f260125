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

/** One tool output as the components see it: a single string of the request body. */
export interface ToolOutput {
  /** Position among the request's tool outputs, 0-based, in message order. */
  readonly index: number;
  /** Index of the message (Responses: item) that holds it in the conversation array. */
  readonly messageIndex: number;
  readonly text: string;
  readonly call: ToolCall | undefined;
  /** Anthropic `is_error: true` on the tool_result. */
  readonly isError: boolean;
  /** What the output is (src/content/), decided once from the text as received and its call. */
  readonly contentClass: ContentClass;
}

/** A half-open range of UTF-16 offsets into the request text. */
export interface Span {
  readonly start: number;
  readonly end: number;
}
