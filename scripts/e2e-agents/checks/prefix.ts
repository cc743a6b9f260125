import { isRecord, type RequestView } from "../conversation.js";
import { arrayElements, objectMembers, sliceText } from "../json-slices.js";

/**
 * Byte-identity of what was already sent (§4a): between a request and the one before it in the
 * same conversation, every message the client sent again unchanged must reach the model again
 * byte for byte. Claude Code moves its `cache_control` breakpoint to the newest message every
 * turn; a difference that is only that move, made by the client, is counted apart. A message
 * the client sent again with blocks appended (Claude Code adds its summary prompt to the last
 * user message) keeps its earlier blocks as they were forwarded before.
 */

export interface SentPair {
  readonly client: RequestView;
  readonly forwarded: RequestView;
}

export interface PrefixComparison {
  /** Items the client sent again the same (up to `cache_control`). */
  readonly common: number;
  /** Of those, forwarded byte-identical. */
  readonly identical: number;
  /** Forwarded differently only by a `cache_control` move the client made. */
  readonly cacheControlMoves: number;
  /** Indices of items the service changed although the client sent them the same. */
  readonly serviceChanges: readonly number[];
  /** `tools` or `system`/`instructions` changed by the service while the client's were the same. */
  readonly headChanged: boolean;
  /** The client itself changed or dropped an item it had sent: the conversation diverged there. */
  readonly clientDiverged: number | undefined;
}

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (!isRecord(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (key !== "cache_control") copy[key] = withoutCacheControl(member);
  }
  return copy;
}

/** An item's text with every `cache_control` member left out (for telling moves apart). */
export function cacheControlFree(raw: string): string {
  return JSON.stringify(withoutCacheControl(JSON.parse(raw)));
}

/** The exact text of a message's content blocks, or undefined when its content is no array. */
export function contentBlocks(raw: string): string[] | undefined {
  const content = objectMembers(raw, { start: 0, end: raw.length }).get("content");
  if (content === undefined || raw[content.start] !== "[") return undefined;
  return arrayElements(raw, content).map((block) => sliceText(raw, block));
}

/**
 * Whether `after` is `before` with blocks appended (up to `cache_control`), and if so how many
 * blocks they share.
 */
export function grownBy(before: string, after: string): number | undefined {
  const was = contentBlocks(before);
  const is = contentBlocks(after);
  if (was === undefined || is === undefined || is.length <= was.length) return undefined;
  const same = was.every(
    (block, index) => cacheControlFree(block) === cacheControlFree(is[index] ?? ""),
  );
  return same ? was.length : undefined;
}

/** How many leading items two requests share, up to `cache_control`. */
export function sharedItems(a: RequestView, b: RequestView): number {
  const limit = Math.min(a.items.length, b.items.length);
  let index = 0;
  while (index < limit) {
    const left = a.items[index]?.raw ?? "";
    const right = b.items[index]?.raw ?? "";
    if (left !== right && cacheControlFree(left) !== cacheControlFree(right)) break;
    index++;
  }
  return index;
}

export function comparePrefix(before: SentPair, after: SentPair): PrefixComparison {
  const common = sharedItems(before.client, after.client);
  let identical = 0;
  let cacheControlMoves = 0;
  const serviceChanges: number[] = [];
  for (let index = 0; index < common; index++) {
    const was = before.forwarded.items[index]?.raw;
    const is = after.forwarded.items[index]?.raw;
    if (was !== undefined && was === is) {
      identical++;
      continue;
    }
    const clientMoved = before.client.items[index]?.raw !== after.client.items[index]?.raw;
    if (
      clientMoved &&
      was !== undefined &&
      is !== undefined &&
      cacheControlFree(was) === cacheControlFree(is)
    ) {
      cacheControlMoves++;
    } else {
      serviceChanges.push(index);
    }
  }
  // The first item the client did not send again the same may be the earlier one grown.
  const grown = before.client.items[common];
  const grownAfter = after.client.items[common];
  const shared = grown && grownAfter ? grownBy(grown.raw, grownAfter.raw) : undefined;
  if (shared !== undefined) {
    const was = contentBlocks(before.forwarded.items[common]?.raw ?? "") ?? [];
    const is = contentBlocks(after.forwarded.items[common]?.raw ?? "") ?? [];
    const kept = was
      .slice(0, shared)
      .every((block, index) => cacheControlFree(block) === cacheControlFree(is[index] ?? ""));
    if (!kept) serviceChanges.push(common);
  }
  const sameHead = (view: RequestView) => `${view.rawTools ?? ""}\u0000${view.rawSystem ?? ""}`;
  const headChanged =
    sameHead(before.client) === sameHead(after.client) &&
    sameHead(before.forwarded) !== sameHead(after.forwarded);
  return {
    common,
    identical,
    cacheControlMoves,
    serviceChanges,
    headChanged,
    clientDiverged:
      common < before.client.items.length && shared === undefined ? common : undefined,
  };
}
