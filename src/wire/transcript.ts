import { classifyOutput } from "../content/classify.js";
import type { ContentClass } from "../content/content-class.js";
import { anthropicStrings } from "./anthropic.js";
import { isRecord } from "./detect.js";
import type { BodyScan } from "./json-scan.js";
import { openaiStrings } from "./openai.js";
import { responsesStrings } from "./responses.js";
import type { Provider, Span, ToolCall, ToolOutput } from "./types.js";

/** One string of message content, located in the request text. */
export interface ContentString {
  readonly path: string;
  readonly span: Span;
  readonly text: string;
  readonly messageIndex: number;
  /** Set for tool outputs; other strings (user and assistant text) are only counted. */
  readonly tool?: { readonly call: ToolCall | undefined; readonly isError: boolean };
}

/** The normalised view of a request (§3) that the pipeline works on. */
export interface Transcript {
  readonly provider: Provider;
  /** Every content string the model reads, in message order. */
  readonly strings: readonly ContentString[];
  readonly outputs: readonly ToolOutput[];
  /** Span of each tool output's string literal, parallel to `outputs`. */
  readonly outputSpans: readonly Span[];
  readonly messageCount: number;
  /** Text of the last user message that has text: the agent's current goal. */
  readonly goal: string;
}

/** What an adapter finds in a body: its located content strings and the current goal. */
export interface AdapterResult {
  readonly strings: ContentString[];
  readonly goal: string;
}

const ADAPTERS = {
  openai: openaiStrings,
  anthropic: anthropicStrings,
  responses: responsesStrings,
} as const satisfies Record<Provider, (items: readonly unknown[], scan: BodyScan) => AdapterResult>;

/**
 * Builds the transcript of a scanned body, classing its tool outputs by `classify`. `messages`
 * is the body's conversation array (`messages`, or a Responses body's `input` items).
 */
export function readTranscript(
  provider: Provider,
  messages: readonly unknown[],
  scan: BodyScan,
  classify: (text: string, call: ToolCall | undefined) => ContentClass = classifyOutput,
): Transcript {
  const found = ADAPTERS[provider](messages, scan);
  const outputs: ToolOutput[] = [];
  const outputSpans: Span[] = [];
  for (const item of found.strings) {
    if (!item.tool) continue;
    outputs.push({
      index: outputs.length,
      messageIndex: item.messageIndex,
      text: item.text,
      call: item.tool.call,
      isError: item.tool.isError,
      contentClass: classify(item.text, item.tool.call),
    });
    outputSpans.push(item.span);
  }
  return { provider, ...found, outputs, outputSpans, messageCount: messages.length };
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

/** Text of a message's content: the string itself, or its text blocks joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const block of content) {
    if (isRecord(block) && block.type === "text" && typeof block.text === "string") {
      texts.push(block.text);
    }
  }
  return texts.join("\n");
}
