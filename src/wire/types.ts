import type { ContentClass } from "../content/content-class.js";

/** The wire format of a request body (§3): OpenAI chat, Anthropic messages, OpenAI Responses. */
export type Provider = "openai" | "anthropic" | "responses";

/** The upstream API family a wire format is served by: Responses bodies go to OpenAI. */
export type Upstream = "openai" | "anthropic";

export function upstreamOf(provider: Provider): Upstream {
  return provider === "anthropic" ? "anthropic" : "openai";
}

/** The member that holds the conversation: `messages` for chat shapes, `input` for Responses. */
export type ConversationKey = "messages" | "input";

export function conversationKey(provider: Provider): ConversationKey {
  return provider === "responses" ? "input" : "messages";
}

/**
 * The top-level members a prompt cache reads before the conversation, in the order it reads
 * them: tools, then the system prompt where it is not a message (§4a "Live sessions"); and the
 * cache key an OpenAI-served request routes its cache by (`prompt_cache_key`): requests under
 * two keys share no cache.
 */
export function promptHeadMembers(provider: Provider): readonly string[] {
  if (provider === "anthropic") return ["tools", "system"];
  if (provider === "responses") return ["tools", "instructions", "prompt_cache_key"];
  return ["tools", "prompt_cache_key"];
}

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
