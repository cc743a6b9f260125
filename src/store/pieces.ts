import { codeAt } from "../text/char-code.js";
import { valueBytes } from "./entry-size.js";
import type { PutOptions, StashEntry, Store } from "./types.js";

/**
 * Originals larger than one store entry (`store.max_entry_bytes`), kept in pieces (§1, §7).
 *
 * A value over the limit is put as a head entry under its own key, holding a manifest (how many
 * pieces, how many UTF-16 units in all), and its pieces under `<key>#<index>/<count>`, all in the
 * same put as the rest of the request: one acknowledged write (one MULTI/EXEC on Redis, one
 * all-or-nothing check in memory), charged to the session like any entry, so the byte bounds and
 * the per-session quota hold. Pieces are ordinary entries of the backend's own key layout (in
 * Redis Cluster they share the session's slot). A read of the head reads every piece, which slides
 * every TTL together; a missing piece, or pieces that do not add up, is a miss: an original is
 * never half resolvable.
 *
 * Manifests start with U+0000, which no original of the pipeline needs to start with; one that
 * does is kept with one more U+0000 in front, taken off again when read.
 */
const ESCAPE = "\u0000";
const MANIFEST = `${ESCAPE}pieces:`;

export function pieceKey(key: string, index: number, count: number): string {
  return `${key}#${index}/${count}`;
}

/**
 * Whether `value` must be kept in pieces under `maxEntryBytes`: a UTF-16 unit is one to three
 * bytes, so only a value between those bounds is measured.
 */
export function needsPieces(value: string, maxEntryBytes: number): boolean {
  if (value.length > maxEntryBytes) return true;
  return value.length * 3 > maxEntryBytes && valueBytes(value) > maxEntryBytes;
}

/**
 * `value` cut into pieces of at most `maxBytes` UTF-8 bytes each, never inside a surrogate pair.
 * Pieces are slices of `value` (no copy of its bytes until they are written).
 */
export function splitValue(value: string, maxBytes: number): string[] {
  const pieces: string[] = [];
  let from = 0;
  while (from < value.length) {
    let units = Math.min(value.length - from, maxBytes);
    for (;;) {
      let end = from + units;
      // A high surrogate at the cut stays with its low half in the next piece.
      if (end < value.length && isHighSurrogate(codeAt(value, end - 1))) end--;
      const bytes = valueBytes(value.slice(from, end));
      if (bytes <= maxBytes) {
        units = end - from;
        break;
      }
      // Shrink in proportion to the overshoot (at least one unit), until the piece fits.
      units = Math.max(1, Math.min(end - from - 1, Math.floor(((end - from) * maxBytes) / bytes)));
    }
    pieces.push(value.slice(from, from + units));
    from += units;
  }
  return pieces;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The entries that keep `entries` within `maxEntryBytes` each: small values as they are. */
export function piecedEntries(entries: readonly StashEntry[], maxEntryBytes: number): StashEntry[] {
  const out: StashEntry[] = [];
  for (const entry of entries) {
    const value = entry.value.startsWith(ESCAPE) ? `${ESCAPE}${entry.value}` : entry.value;
    if (!needsPieces(value, maxEntryBytes)) {
      out.push(value === entry.value ? entry : { key: entry.key, value });
      continue;
    }
    const pieces = splitValue(value, maxEntryBytes);
    out.push({ key: entry.key, value: `${MANIFEST}${pieces.length}:${value.length}` });
    pieces.forEach((piece, index) => {
      out.push({ key: pieceKey(entry.key, index, pieces.length), value: piece });
    });
  }
  return out;
}

/** The original a stored head stands for: itself, unescaped, or its pieces read back whole. */
export async function readPieced(
  head: string | undefined,
  read: (key: string) => Promise<string | undefined>,
  key: string,
): Promise<string | undefined> {
  if (head === undefined || !head.startsWith(ESCAPE)) return head;
  if (!head.startsWith(MANIFEST)) return head.slice(1);
  const [countText, lengthText] = head.slice(MANIFEST.length).split(":");
  const count = Number(countText);
  const length = Number(lengthText);
  if (!Number.isSafeInteger(count) || count < 1 || !Number.isSafeInteger(length)) return undefined;
  const pieces = await Promise.all(
    Array.from({ length: count }, (_, index) => read(pieceKey(key, index, count))),
  );
  if (pieces.some((piece) => piece === undefined)) return undefined;
  const value = pieces.join("");
  if (value.length !== length) return undefined;
  return value.startsWith(ESCAPE) ? value.slice(1) : value;
}

/**
 * `store` with originals over `maxEntryBytes` kept in pieces. Every other call goes to `store`
 * as it is.
 */
export function withPieces(store: Store, maxEntryBytes: number): Store {
  return {
    backend: store.backend,
    persists: store.persists,
    put: (session: string, entries: readonly StashEntry[], options?: PutOptions) =>
      store.put(session, store.persists ? piecedEntries(entries, maxEntryBytes) : entries, options),
    get: async (session: string, key: string) =>
      readPieced(await store.get(session, key), (piece) => store.get(session, piece), key),
    ledger: (session) => store.ledger(session),
    keep: (session, ids) => store.keep(session, ids),
    observe: (session, write) => store.observe(session, write),
    sharedNumber: (name) => store.sharedNumber(name),
    swapSharedNumber: (name, expected, next, ttlMs) =>
      store.swapSharedNumber(name, expected, next, ttlMs),
    ready: () => store.ready(),
    stats: () => store.stats(),
    close: () => store.close(),
  };
}
