/**
 * The buffers request bodies are read into, kept from one body to the next (§10). Memory a
 * process touches for the first time costs a page fault a page — on a virtual machine about
 * 10 µs, near 3 ms a megabyte — and a body read into fresh memory took twice as long to read as
 * one read into memory a body was read into before. The buffers are shared memory: a worker
 * thread that compacts a body reads the same bytes.
 *
 * A buffer is lent to one request, from its body's first byte until the route is done with the
 * body and its response has been written or its connection has closed (`release`, called by
 * limitBody), and to no other meanwhile: no request ever reads or answers with another's bytes.
 * A body is given exactly its own bytes, a view of the buffer's first ones, each of them read
 * from its request before the body is read at all. Bodies under MIN_KEPT_BYTES are read into
 * buffers of their own (their memory costs little); the others into buffers of a power of two,
 * at most `maxIdleBytes` of them kept while no request holds them.
 */
export const MIN_KEPT_BYTES = 64 * 1024;

/**
 * Idle buffers kept at most, by default: one of the largest bodies' (32 MiB, `limits.body_bytes`)
 * or thirty of a megabyte. Counted in the pod's memory (k8s/README.md, "Memory and CPU").
 */
export const MAX_IDLE_BYTES = 32 * 1024 * 1024;

/** A body's buffer, lent to one request until `release`. */
export interface BodyLease {
  /** Exactly the body's bytes: the buffer's first `length`. */
  readonly bytes: Uint8Array;
  /** Gives the buffer back: once the request no longer reads or answers with it. */
  release(): void;
}

export class BodyBuffers {
  /** Idle buffers by capacity. */
  readonly #idle = new Map<number, SharedArrayBuffer[]>();
  #idleBytes = 0;

  constructor(
    private readonly maxIdleBytes = MAX_IDLE_BYTES,
    /** Each time a body is read into a buffer an earlier body was read into. */
    private readonly onReuse: () => void = () => {},
  ) {}

  /** Bytes of the idle buffers now. */
  get idleBytes(): number {
    return this.#idleBytes;
  }

  lend(length: number): BodyLease {
    if (length < MIN_KEPT_BYTES) {
      return { bytes: new Uint8Array(new SharedArrayBuffer(length)), release: () => {} };
    }
    const capacity = capacityFor(length);
    let buffer = this.#idle.get(capacity)?.pop();
    if (buffer === undefined) buffer = new SharedArrayBuffer(capacity);
    else {
      this.#idleBytes -= capacity;
      this.onReuse();
    }
    let lent = true;
    return {
      bytes: new Uint8Array(buffer, 0, length),
      release: () => {
        if (!lent) return;
        lent = false;
        if (this.#idleBytes + capacity > this.maxIdleBytes) return;
        const idle = this.#idle.get(capacity) ?? [];
        idle.push(buffer);
        this.#idle.set(capacity, idle);
        this.#idleBytes += capacity;
      },
    };
  }
}

/** The power of two a body of `length` bytes is read into. */
function capacityFor(length: number): number {
  let capacity = MIN_KEPT_BYTES;
  while (capacity < length) capacity *= 2;
  return capacity;
}
