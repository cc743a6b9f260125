import { carriesMarker, markerIds } from "./expand/markers.js";
import { removeExpandTool } from "./expand/uninject.js";
import { rememberLongTexts } from "./pipeline/hash-memo.js";
import { chainIds, messageDigest } from "./session/chain.js";
import { sessionKey } from "./session/key.js";
import { ownershipKey, type RecordKind, recordKey } from "./session/records.js";
import type { Store } from "./store/types.js";
import { applyEdits, type Edit } from "./wire/edit.js";
import { isRecord } from "./wire/is-record.js";
import { type BodyScan, scanBody } from "./wire/json-scan.js";
import { type ProviderChoice, resolveShape } from "./wire/provider-choice.js";
import { elementText } from "./wire/replace-messages.js";
import type { ContentString } from "./wire/string-collector.js";
import { readTranscript } from "./wire/transcript.js";
import type { Span } from "./wire/types.js";

/** Texts at least this long have their ids remembered for the one rehydration. */
const LONG_TEXT_CHARS = 64 * 1024;

export interface RehydrateResult {
  readonly text: string;
  readonly session: string;
  /** Strings, and summary messages, restored to their originals. */
  readonly restored: number;
  /** Marker ids left in place because the store no longer has them (or the session does not own them). */
  readonly unresolved: number;
}

export class InvalidBodyError extends Error {
  override readonly name = "InvalidBodyError";
}

/**
 * POST /rehydrate (§2): every string the pipeline changed comes back byte for byte. A reformatted
 * output is found by the hash of its text (`rf` records); an offloaded one by its marker, whose
 * stashed text may itself have been reformatted first. Both only within the conversation the
 * body is (session/records.ts): a marker of another conversation under the same session key
 * stays unresolved.
 */
export async function rehydrate(
  text: string,
  store: Store,
  sharedHash: (text: string) => string,
  options: { provider?: ProviderChoice; session?: string | undefined } = {},
): Promise<RehydrateResult> {
  // A restored multi-megabyte original is looked up by its id more than once.
  const hash = rememberLongTexts(sharedHash, LONG_TEXT_CHARS);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new InvalidBodyError("body is not valid JSON", { cause: error });
  }
  if (!isRecord(body)) throw new InvalidBodyError("body is not a JSON object");
  const session = sessionKey(body, options.session);
  const shape = resolveShape(options.provider ?? "auto", body);
  const messages = body[shape.scan.conversation];
  const scan = scanBody(text, shape.scan);
  if (!Array.isArray(messages) || !scan || scan.ambiguous) {
    return { text, session, restored: 0, unresolved: 0 };
  }
  const transcript = readTranscript(shape, messages, scan);
  // Records and markers are resolved only through the conversation this body is (§7): the chain
  // ids of its messages (Responses: items) as they stand, which are those the compactor returned.
  // Hashed once, and only when some string may be restored: most messages of a long body are
  // plain text, whose ids are needed only for the messages after them.
  let chain: string[] | undefined;
  const chainOf = () => {
    chain ??= chainIds(
      scan.messages.map((span, index) =>
        messageDigest(text.slice(span.start, span.end), () => messages[index]),
      ),
    );
    return chain;
  };
  const lookup = (key: string) => store.get(session, key);
  const records = (messageIndex: number): Records => {
    const conversation = chainOf()[messageIndex] ?? "";
    return {
      record: (kind, textId) => lookup(recordKey(kind, conversation, textId)),
      original: async (id) =>
        (await lookup(ownershipKey(conversation, id))) === undefined ? undefined : lookup(id),
    };
  };
  const edits = await restoreMessages(messages, scan, records, hash);
  const replaced = new Set(edits.map((edit) => edit.messageIndex));
  // Only tool outputs have records (`rf:`, session/records.ts) and only a marker resolves: any
  // other string (user and assistant text, most of a long body) costs no hash and no lookup.
  const strings = transcript.strings.filter(
    (item) =>
      !replaced.has(item.messageIndex) && (item.tool !== undefined || carriesMarker(item.text)),
  );
  let unresolved = 0;
  // In slices, so a body of a million strings holds a slice's lookups at a time, not a million.
  for (let from = 0; from < strings.length; from += SLICE) {
    const slice = strings.slice(from, from + SLICE);
    const outcomes = await Promise.all(
      slice.map((item) => restore(item, records(item.messageIndex), hash)),
    );
    for (const [index, outcome] of outcomes.entries()) {
      const item = slice[index] as ContentString;
      unresolved += outcome.unresolved;
      if (outcome.text !== undefined && outcome.text !== item.text) {
        edits.push({
          span: item.span,
          raw: await spelling(outcome.text, records(item.messageIndex), hash),
          messageIndex: item.messageIndex,
        });
      }
    }
  }
  // The agent's calls a component cleared carry a marker; each comes back from its `rf:` record.
  for (const call of transcript.slots.call) {
    if (replaced.has(call.messageIndex) || !carriesMarker(call.text)) continue;
    const own = records(call.messageIndex);
    const original = await own.record("rf", hash(call.text));
    if (original === undefined) {
      unresolved += new Set(markerIds(call.text)).size;
      continue;
    }
    const raw = call.literal === "json" ? original : await spelling(original, own, hash);
    edits.push({ span: call.span, raw, messageIndex: call.messageIndex });
  }
  return {
    text: removeExpandTool(applyEdits(text, edits), shape),
    session,
    restored: edits.length,
    unresolved,
  };
}

/**
 * Summary messages (§5 summarize) come back as the exact raw JSON of the messages they replaced:
 * a message whose only text carries a marker and has a `msg:` record (hash of that text → the
 * marker id) is swapped for the raw span stashed under the id.
 */
async function restoreMessages(
  messages: readonly unknown[],
  scan: BodyScan,
  records: (messageIndex: number) => Records,
  hash: (text: string) => string,
): Promise<(Edit & { messageIndex: number })[]> {
  // Only a message whose text carries a marker can be a summary: the rest cost no lookup.
  const candidates: Array<{ text: string; span: Span; messageIndex: number }> = [];
  messages.forEach((message, messageIndex) => {
    const text = elementText(message);
    const span = scan.messages[messageIndex];
    if (text !== undefined && span && carriesMarker(text))
      candidates.push({ text, span, messageIndex });
  });
  const edits: (Edit & { messageIndex: number })[] = [];
  for (let from = 0; from < candidates.length; from += SLICE) {
    const found = await Promise.all(
      candidates.slice(from, from + SLICE).map(async ({ text, span, messageIndex }) => {
        const own = records(messageIndex);
        const id = await own.record("msg", hash(text));
        if (id === undefined || !markerIds(text).includes(id)) return undefined;
        const raw = await own.original(id);
        if (raw === undefined || !isMessageRun(raw)) return undefined;
        return { span, raw, messageIndex };
      }),
    );
    for (const edit of found) if (edit !== undefined) edits.push(edit);
  }
  return edits;
}

/** Strings (or messages) whose lookups are in flight at once. */
const SLICE = 4096;

function isMessageRun(raw: string): boolean {
  try {
    const parsed: unknown = JSON.parse(`[${raw}]`);
    return Array.isArray(parsed) && parsed.every(isRecord);
  } catch {
    return false;
  }
}

/** What one message of the body may resolve: its conversation's records and markers. */
interface Records {
  record(kind: RecordKind, textId: string): Promise<string | undefined>;
  /** The original under marker `id`, when the marker was written into this conversation. */
  original(id: string): Promise<string | undefined>;
}

async function restore(
  item: ContentString,
  own: Records,
  hash: (text: string) => string,
): Promise<{ text: string | undefined; unresolved: number }> {
  const reformatted = await own.record("rf", hash(item.text));
  if (reformatted !== undefined) return { text: reformatted, unresolved: 0 };
  const ids = [...new Set(markerIds(item.text))];
  if (ids.length !== 1) return { text: undefined, unresolved: ids.length };
  const stashed = await own.original(ids[0] as string);
  if (stashed === undefined) return { text: undefined, unresolved: 1 };
  const before = await own.record("rf", hash(stashed));
  return { text: before ?? stashed, unresolved: 0 };
}

/** The string literal as the client wrote it (its own escapes), else the canonical spelling. */
async function spelling(
  original: string,
  own: Records,
  hash: (text: string) => string,
): Promise<string> {
  const raw = await own.record("sp", hash(original));
  if (raw !== undefined) {
    try {
      if (JSON.parse(raw) === original) return raw;
    } catch {
      // A record that is not a literal of this text is ignored.
    }
  }
  return JSON.stringify(original);
}
