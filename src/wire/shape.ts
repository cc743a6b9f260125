import type { NamedPricing } from "../cache/pricing.js";
import type { ServedUsage } from "../cache/usage.js";
import type { ToolResult } from "../expand/continuation.js";
import type { StreamAggregator } from "../expand/stream-aggregator.js";
import type { AssistantTurn } from "../expand/turn.js";
import type { MessageView } from "../pipeline/types.js";
import type { BodyScan, ScanKeys } from "./json-scan.js";
import type { ConversationStrings, StringsSoFar } from "./string-collector.js";
import type { Provider, Upstream } from "./types.js";

/**
 * One wire shape (§3): everything the service knows about request bodies of that shape and the
 * responses they get, behind one object. Each shape is a folder under `shapes/` and one line of
 * the registry (registry.ts); the rest of the service asks the shape instead of testing its name.
 */
export interface WireShape<Name extends string = Provider> {
  /** `?provider=` and the metric labels call the shape by this name. */
  readonly name: Name;
  /** The proxy route (§2) that takes bodies of this shape. */
  readonly proxyRoute: string;
  /**
   * Whether `auto` sniffing (§2) reads `body` as this shape. The registry asks the shapes in its
   * order; the first that says yes is the body's shape.
   */
  detects(body: Record<string, unknown>): boolean;
  /** Where the conversation is and which of its strings the scanner locates. */
  readonly scan: ScanKeys;
  /** The texts a derived session key hashes (§7). */
  sessionTexts(body: Record<string, unknown>): SessionTexts;
  /** What §4a "Live sessions" reads of a conversation of this shape. */
  readonly conversation: ConversationReading;
  /**
   * The content strings of the conversation (`items`: the array under `scan.conversation`) that
   * the scan located, tool outputs paired with their calls, and the current goal; read on from
   * message `soFar.shared` where an earlier read of the same first messages is given.
   */
  strings(items: readonly unknown[], scan: BodyScan, soFar?: StringsSoFar): ConversationStrings;
  /** One message (item) as the model reads it: for messages-scoped components and the cost replay. */
  view(item: unknown, index: number): MessageView;
  /**
   * The JSON text of the message a summary puts in place of a run of messages (§5 summarize);
   * absent where messages are never replaced (Responses items are never added, removed or
   * reordered, §3), so messages-scoped components are unavailable there.
   */
  readonly summaryMessage?: (role: string, text: string) => string;
  /** The expand tool's `tools[]` entry (§8.1) as JSON text, byte-identical on every call. */
  readonly expandTool: string;
  /** Reading the model's answer (§8.2): finding expand calls and aggregating the turn. */
  readonly response: ResponseReading;
  /**
   * The next round's request (§8.2): `text` with the model's turn and one result per expand call
   * (in call order) added, every other byte as it was; undefined when it cannot be continued.
   */
  continuation(
    text: string,
    turn: AssistantTurn,
    results: readonly ToolResult[],
  ): string | undefined;
  /** What the shape's responses report of the server's prompt cache (§4a). */
  readonly usage: UsageReading;
  /** Where bodies of this shape are sent, and how a gateway key goes with them. */
  readonly upstream: UpstreamRoute;
  /** The prices `cache.pricing: auto` judges the shape's requests by (§4a). */
  readonly pricing: NamedPricing;
}

/** What §4a "Live sessions" reads of a request: where its cached prefix starts, and its turns. */
export interface ConversationReading {
  /**
   * The top-level members a prompt cache reads before the conversation, in the order it reads
   * them (the chain's root, session/root.ts): the tools, then the system prompt where it is not a
   * message, and a cache key the provider routes by.
   */
  readonly promptHead: readonly string[];
  /**
   * Whether the conversation (`items`) holds an earlier turn of the assistant, or the server
   * holds one for it: without one, the request is a session's first.
   */
  hasAssistantTurn(body: Record<string, unknown>, items: readonly unknown[]): boolean;
  /** The text of the conversation's last user message ("" when it has none). */
  lastUserText(items: readonly unknown[]): string;
  /** Whether the conversation ends by asking the model to compact it (a trigger item). */
  endsWithCompactionTrigger(items: readonly unknown[]): boolean;
}

/** The first system text and the first user text of a conversation ("" when there is none). */
export interface SessionTexts {
  readonly system: string;
  readonly user: string;
}

/** Reading a response body (§8.2). */
export interface ResponseReading {
  /**
   * The assistant turn of a non-streaming body (`text` as received), or undefined when the body
   * is not a response the loop can continue; the response then goes back as it is.
   */
  json(body: Record<string, unknown>, text: string): AssistantTurn | undefined;
  /** A new aggregator for one response event stream. */
  stream(): StreamAggregator;
}

/** Reading the prompt-cache usage a response reports (§4a). */
export interface UsageReading {
  /** The usage format's name in metric labels (`cg_cache_usage_unreported_total{format}`). */
  readonly format: string;
  /** The served cache of a usage object (a response's `usage`); undefined when it tells none. */
  served(usage: unknown): ServedUsage | undefined;
  /**
   * The usage object as known after one stream event (`data`, parsed): `earlier` as it was when
   * the event carries none.
   */
  fromEvent(
    data: Record<string, unknown>,
    earlier: Record<string, unknown> | undefined,
  ): Record<string, unknown> | undefined;
}

/** Where a shape's requests go upstream. */
export interface UpstreamRoute {
  /** The configured upstream that serves the shape (`upstream.openai`, `upstream.anthropic`). */
  readonly family: Upstream;
  /** The path below that upstream's base URL, as the official SDKs lay it out. */
  readonly path: string;
  /** The header a configured gateway key is sent in, in place of the client's credentials. */
  gatewayCredential(key: string): readonly [name: string, value: string];
}
