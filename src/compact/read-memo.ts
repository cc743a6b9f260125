import { LRUCache } from "lru-cache";
import { commonPrefixLength } from "../text/common-prefix.js";
import type { BodyScan } from "../wire/json-scan.js";
import type { ConversationRead } from "../wire/transcript.js";

/** What one request was read as: its text, the scan of it, its transcript, its messages' digests. */
export interface Read {
  readonly text: string;
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

/** Characters a read's scan and transcript count for beside its text, per message. */
const PER_MESSAGE_CHARS = 96;

/**
 * The last request of each session as it was read (§4: the work of a warm turn follows its new
 * bytes). An agent re-sends its whole history every turn, byte for byte, and adds a message or
 * two: the scan and the transcript of the messages it shares with the session's last request are
 * taken from that read, and only the rest of the body is scanned and read (json-scan.ts
 * resumeScan, transcript.ts readConversation). Their strings are the earlier read's own, so every
 * memo keyed by a text finds them without hashing them again.
 *
 * An optimisation, never a source of truth: the shared messages are found by comparing the bytes
 * themselves, and a miss (a new session, the memo let it go, a restart, another replica) reads
 * the whole body, which gives the same transcript. Bounded by the characters it holds: each read
 * holds its body and the strings read from it, about twice the body.
 */
export class ReadMemo {
  readonly #reads: LRUCache<string, Read>;

  constructor(maxChars: number) {
    this.#reads = new LRUCache<string, Read>({
      maxSize: Math.max(1, maxChars),
      sizeCalculation: (read) =>
        Math.max(1, 2 * read.text.length + PER_MESSAGE_CHARS * read.scan.messages.length),
    });
  }

  /** The session's last read of this wire shape, when `text` starts with some of its messages. */
  recall(session: string, shape: string, text: string): Recalled | undefined {
    const prior = this.#reads.get(keyOf(session, shape));
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

  remember(session: string, shape: string, read: Read): void {
    this.#reads.set(keyOf(session, shape), read);
  }
}

function keyOf(session: string, shape: string): string {
  return `${shape}\u0000${session}`;
}
