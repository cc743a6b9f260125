import { LRUCache } from "lru-cache";
import { commonPrefixLength } from "../text/common-prefix.js";
import type { BodyScan } from "../wire/json-scan.js";
import type { ParsedBefore } from "../wire/resume-parse.js";
import type { ConversationRead } from "../wire/transcript.js";

/**
 * What one request was read as: its text, its body as parsed, the scan of it, its transcript,
 * its messages' digests.
 */
export interface Read extends ParsedBefore {
  /** The wire shape it was read as. */
  readonly shape: string;
  readonly scan: BodyScan;
  readonly read: ConversationRead;
  /** The digest of each message (session/chain.ts), parallel to the scan's messages. */
  readonly digests: readonly string[];
}

/** An earlier read whose first `shared` messages are byte for byte the new request's. */
export interface Recalled {
  readonly prior: Read;
  readonly shared: number;
}

/**
 * Characters a read's parsed elements, scan and transcript count for beside its text, per
 * message and per string read: their objects (the strings themselves the token and component
 * memos hold too).
 */
const PER_MESSAGE_CHARS = 192;
const PER_STRING_CHARS = 96;

/**
 * The last request of each session as it was read (§4: the work of a warm turn follows its new
 * bytes). An agent re-sends its whole history every turn, byte for byte, and adds a message or
 * two: the messages it shares with the session's last request are taken from that read as
 * parsed, scanned and read, and only the rest of the body is parsed, scanned and read
 * (resume-parse.ts, json-scan.ts resumeScan, transcript.ts readConversation). Their strings are
 * the earlier read's own, so every memo keyed by a text finds them without hashing them again.
 * Sessions are told apart before the body is parsed (session/prefix-key.ts windowSessionKey).
 *
 * An optimisation, never a source of truth: the shared messages are found by comparing the bytes
 * themselves, and a miss (a new session, the memo let it go, a restart, another replica) reads
 * the whole body, which gives the same body, scan and transcript. Bounded by the characters it
 * holds: each read its body, and the objects parsed and read from it.
 */
export class ReadMemo {
  readonly #reads: LRUCache<string, Read>;

  constructor(maxChars: number) {
    this.#reads = new LRUCache<string, Read>({
      maxSize: Math.max(1, maxChars),
      sizeCalculation: (read) =>
        Math.max(
          1,
          read.text.length +
            PER_MESSAGE_CHARS * read.scan.messages.length +
            PER_STRING_CHARS * read.read.transcript.strings.length,
        ),
    });
  }

  /** The session's last read, when `text` starts with some of its messages. */
  recall(session: string, text: string): Recalled | undefined {
    const prior = this.#reads.get(session);
    if (prior === undefined) return undefined;
    const same = commonPrefixLength(prior.text, text);
    const { messages } = prior.scan;
    // Messages whose every byte, and every byte before them, the two texts share.
    let low = 0;
    let high = messages.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((messages[middle]?.end ?? Number.POSITIVE_INFINITY) <= same) low = middle + 1;
      else high = middle;
    }
    return low === 0 ? undefined : { prior, shared: low };
  }

  /**
   * Holds `read` as the session's last. Its body's values become a later request's own
   * (resume-parse.ts), so they are frozen here, each new one once: a step that changed one would
   * change a later request it was never given.
   */
  remember(session: string, read: Read): void {
    freeze(read.body);
    this.#reads.set(session, read);
  }
}

/** Freezes a parsed JSON value throughout; one frozen already was frozen so throughout. */
function freeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const member of Object.values(value)) freeze(member);
}
