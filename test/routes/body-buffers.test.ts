import { EventEmitter } from "node:events";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { BodyBuffers, MIN_KEPT_BYTES } from "../../src/routes/body-buffers.js";
import { limitBody, requestBytes } from "../../src/routes/body-limit.js";

describe("BodyBuffers", () => {
  it("lends a body exactly its bytes, in a buffer kept for a later body once given back", () => {
    let reused = 0;
    const buffers = new BodyBuffers(16 * MIN_KEPT_BYTES, () => reused++);
    const first = buffers.lend(MIN_KEPT_BYTES + 10);
    expect(first.bytes.byteLength).toBe(MIN_KEPT_BYTES + 10);
    expect(first.bytes.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(first.bytes.buffer.byteLength).toBe(2 * MIN_KEPT_BYTES);
    // Lent: another body gets a buffer of its own.
    const second = buffers.lend(MIN_KEPT_BYTES + 10);
    expect(second.bytes.buffer).not.toBe(first.bytes.buffer);
    first.release();
    first.release();
    expect(buffers.idleBytes).toBe(2 * MIN_KEPT_BYTES);
    const third = buffers.lend(2 * MIN_KEPT_BYTES);
    expect(third.bytes.buffer).toBe(first.bytes.buffer);
    expect(third.bytes.byteLength).toBe(2 * MIN_KEPT_BYTES);
    expect(reused).toBe(1);
    // Given back twice, it was kept once: the next body of its size gets a fresh one.
    expect(buffers.lend(MIN_KEPT_BYTES + 1).bytes.buffer).not.toBe(first.bytes.buffer);
    expect(reused).toBe(1);
  });

  it("reads a small body into a buffer of its own, and keeps no more idle than its bound", () => {
    const buffers = new BodyBuffers(4 * MIN_KEPT_BYTES);
    const small = buffers.lend(100);
    expect(small.bytes.buffer.byteLength).toBe(100);
    small.release();
    expect(buffers.idleBytes).toBe(0);
    const leases = [1, 2, 3].map(() => buffers.lend(2 * MIN_KEPT_BYTES));
    for (const lease of leases) lease.release();
    expect(buffers.idleBytes).toBe(4 * MIN_KEPT_BYTES);
  });
});

/** A request as Node's HTTP server hands it to the app: its body as events. */
class Incoming extends EventEmitter {
  destroy(error: Error): void {
    this.emit("error", error);
  }
}

describe("limitBody with BodyBuffers", () => {
  /**
   * An app whose route reads the body, then waits for `route.done` before answering: a
   * compaction that waits for a worker reads the body only when it starts.
   */
  function appReading(buffers: BodyBuffers) {
    let finish = () => {};
    const done = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const app = new Hono();
    app.post("/", limitBody(10 * 1024 * 1024, buffers), async (c) => {
      const bytes = await requestBytes(c);
      await done;
      // A copy: the fetch API's Response reads no shared memory (Node's server writes it as is).
      return new Response(bytes.slice());
    });
    return { app, finish };
  }

  function post(app: Hono, body: Uint8Array) {
    const incoming = new Incoming();
    const outgoing = new EventEmitter();
    const answer = app.fetch(
      new Request("http://test/", {
        method: "POST",
        headers: { "content-length": String(body.byteLength) },
      }),
      { incoming, outgoing },
    );
    incoming.emit("data", Buffer.from(body));
    incoming.emit("end");
    return { answer: Promise.resolve(answer), outgoing };
  }

  it("gives the buffer back only once the route is done and the response has ended", async () => {
    const buffers = new BodyBuffers();
    const { app, finish } = appReading(buffers);
    const body = new Uint8Array(3 * MIN_KEPT_BYTES).fill(7);
    const { answer, outgoing } = post(app, body);
    await new Promise((resolve) => setImmediate(resolve));
    // The connection closed while the route still works on the body: it keeps the buffer.
    outgoing.emit("close");
    expect(buffers.idleBytes).toBe(0);
    finish();
    const response = await answer;
    expect(new Uint8Array(await response.arrayBuffer())).toEqual(body);
    expect(buffers.idleBytes).toBe(4 * MIN_KEPT_BYTES);
  });

  it("keeps the buffer while the response is being written after the route is done", async () => {
    const buffers = new BodyBuffers();
    const { app, finish } = appReading(buffers);
    finish();
    const { answer, outgoing } = post(app, new Uint8Array(3 * MIN_KEPT_BYTES).fill(1));
    await answer;
    expect(buffers.idleBytes).toBe(0);
    outgoing.emit("close");
    expect(buffers.idleBytes).toBe(4 * MIN_KEPT_BYTES);
  });
});
