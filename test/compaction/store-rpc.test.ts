import { MessageChannel, type MessagePort } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import {
  STAGE_MAX_CHARS,
  STAGE_MIN_CHARS,
  StoreClient,
  type StoreRpcMessage,
  serveStore,
  storeSnapshot,
} from "../../src/compaction/store-rpc.js";
import { parseConfig } from "../../src/config/load.js";
import { StoreEntryTooLargeError } from "../../src/errors/store-error.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { Store } from "../../src/store/types.js";

/**
 * The store stand-in of a worker thread and its server on the event-loop side, over a real
 * MessageChannel: every call reaches the one store by name, errors keep their class, and once a
 * job is refused its calls never touch the store.
 */
const ports: MessagePort[] = [];
afterEach(() => {
  for (const port of ports.splice(0)) port.close();
});

function connect(store: Store) {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  const served = serveStore(port1, store);
  const client = new StoreClient(storeSnapshot(store));
  client.attach(port2);
  let messages = 0;
  const received: StoreRpcMessage[] = [];
  port1.on("message", (message: StoreRpcMessage) => {
    messages++;
    received.push(message);
  });
  return { served, client, remote: client.store, messages: () => messages, received };
}

/** The client's next job: a port of its own, served, every message it carries recorded. */
function nextJob(store: Store, client: StoreClient) {
  const { port1, port2 } = new MessageChannel();
  ports.push(port1, port2);
  const served = serveStore(port1, store);
  const received: StoreRpcMessage[] = [];
  port1.on("message", (message: StoreRpcMessage) => received.push(message));
  client.attach(port2);
  return { served, received };
}

/** The entries of every put that crossed, as they crossed. */
function putsSent(received: readonly StoreRpcMessage[]): unknown[] {
  return received.flatMap((message) =>
    message.type === "store-calls"
      ? message.calls.filter((call) => call.method === "put").map((call) => call.args[1])
      : [],
  );
}

const memory = (input = {}) => new MemoryStore(parseConfig({ store: input }).store);

describe("a worker's store stand-in", () => {
  it("writes and reads the event-loop thread's store, and answers its plain values itself", async () => {
    const store = memory();
    const { remote } = connect(store);
    expect(remote.backend).toBe("memory");
    expect(remote.persists).toBe(true);

    const ledger = {
      at: 7,
      chain: "c1",
      head: { messages: 2, root: "", prints: "", tool: true, outputs: [], calls: [], at: 7 },
      evict: [],
    };
    await remote.put("s1", [{ key: "k1", value: "original one" }], { ledger });

    expect(await store.get("s1", "k1")).toBe("original one");
    expect(await remote.get("s1", "k1")).toBe("original one");
    expect(await remote.get("s2", "k1")).toBeUndefined();
    // The session ledger crosses as plain data: its Map and Set come back whole.
    const read = await remote.ledger("s1");
    expect([read.lastRequestAt, [...read.heads.keys()], read.heads.get("c1")?.tool]).toEqual([
      7,
      ["c1"],
      true,
    ]);
  });

  it("forwards a method the interface did not have when it was written", async () => {
    const store = memory();
    const extended = Object.assign(Object.create(store) as Store, {
      backend: store.backend,
      persists: store.persists,
      ledger: async (session: string, chain: string[]) => `${session}:${chain.join(">")}`,
    });
    const { remote } = connect(extended);
    const call = (remote as unknown as { ledger(s: string, c: string[]): Promise<string> }).ledger;
    expect(await call("s1", ["a", "b"])).toBe("s1:a>b");
  });

  it("rejects with the store's own error class and fields", async () => {
    const { remote } = connect(memory({ max_entry_bytes: 8 }));
    const error = await remote.put("s1", [{ key: "big", value: "0123456789" }]).catch((e) => e);
    expect(error).toBeInstanceOf(StoreEntryTooLargeError);
    expect(error).toMatchObject({ key: "big", bytes: 10, limit: 8, operation: "put" });
    expect((error as Error).message).toBe(
      "store put: entry big is 10 bytes, more than the limit of 8",
    );
  });

  it("never closes the process's store, and refuses names that are not methods", async () => {
    const store = memory();
    const { remote } = connect(store);
    await expect(remote.close()).rejects.toThrow("not a store method");
    await expect((remote as unknown as { nothing(): Promise<void> }).nothing()).rejects.toThrow(
      "not a store method",
    );
    await store.put("s1", [{ key: "k", value: "still here" }]);
    expect(await remote.get("s1", "k")).toBe("still here");
  });

  it("refuses every call of a job that was abandoned, and the store never sees them", async () => {
    const store = memory();
    const { remote, served } = connect(store);
    served.refuse();

    await expect(remote.put("s1", [{ key: "late", value: "late write" }])).rejects.toThrow(
      "the job was abandoned",
    );
    await expect(remote.get("s1", "late")).rejects.toThrow("the job was abandoned");
    expect(await store.get("s1", "late")).toBeUndefined();
    expect(await store.stats()).toEqual({ entries: 0, bytes: 0 });
  });

  it("sends the calls of one turn together: ten thousand lookups in a few messages", async () => {
    // One session may hold the whole store here (its share is max_session_bytes of max_bytes).
    const store = memory({ max_entries: 20_000, max_session_bytes: 256 * 1024 * 1024 });
    await store.put(
      "s1",
      Array.from({ length: 10_000 }, (_, index) => ({ key: `k${index}`, value: `v${index}` })),
    );
    const { remote, messages } = connect(store);

    const values = await Promise.all(
      Array.from({ length: 10_000 }, (_, index) => remote.get("s1", `k${index}`)),
    );

    expect(values[0]).toBe("v0");
    expect(values[9_999]).toBe("v9999");
    expect(messages()).toBeLessThanOrEqual(3);
  });

  it("tells the event-loop side of each call as it settles there, before the worker hears of it", async () => {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1, port2);
    const heard: string[] = [];
    serveStore(port1, memory({ max_entry_bytes: 8 }), (method, ok) => {
      heard.push(`${method} ${ok ? "ok" : "failed"}`);
    });
    const client = new StoreClient(storeSnapshot(memory()));
    client.attach(port2);

    await client.store.put("s1", [{ key: "k1", value: "short" }]);
    expect(heard).toEqual(["put ok"]);
    await expect(client.store.put("s1", [{ key: "k2", value: "far too long" }])).rejects.toThrow();
    expect(heard).toEqual(["put ok", "put failed"]);
  });

  it("rejects calls once its job has ended", async () => {
    const { client, remote } = connect(memory());
    client.detach();
    await expect(remote.get("s1", "k")).rejects.toThrow("no job is running");
  });

  it("sends a long value ahead: the put names it by number and the store keeps it whole", async () => {
    const store = memory();
    const { remote, received } = connect(store);
    const long = `${"y\n".repeat(STAGE_MIN_CHARS)}end`;
    const short = "a short original";
    remote.stage?.(long);
    remote.stage?.(long);
    remote.stage?.(short);
    await remote.put("s1", [
      { key: "long", value: long },
      { key: "again", value: long },
      { key: "short", value: short },
    ]);

    expect(await store.get("s1", "long")).toBe(long);
    expect(await store.get("s1", "again")).toBe(long);
    expect(await store.get("s1", "short")).toBe(short);
    // The long value crossed once, ahead of the put; the short one with it.
    const staged = received.filter((message) => message.type === "store-stage");
    expect(staged.map((message) => message.type === "store-stage" && message.value)).toEqual([
      long,
    ]);
    expect(putsSent(received)).toEqual([
      [
        { key: "long", staged: 0 },
        { key: "again", staged: 0 },
        { key: "short", value: short },
      ],
    ]);
  });

  it("carries a long value that was not staged, and one an earlier job staged, in the put", async () => {
    const store = memory();
    const { client, remote } = connect(store);
    const first = `${"a".repeat(STAGE_MIN_CHARS)}1`;
    const second = `${"b".repeat(STAGE_MIN_CHARS)}2`;
    remote.stage?.(first);
    // The next job on the same worker: what the last one staged is not named any more.
    client.detach();
    const next = nextJob(store, client);
    await remote.put("s1", [
      { key: "first", value: first },
      { key: "second", value: second },
    ]);
    expect(await store.get("s1", "first")).toBe(first);
    expect(await store.get("s1", "second")).toBe(second);
    expect(putsSent(next.received)).toEqual([
      [
        { key: "first", value: first },
        { key: "second", value: second },
      ],
    ]);
  });

  it("stages nothing without a job, and an abandoned job's staged values are never kept", async () => {
    const store = memory();
    const { client, remote } = connect(store);
    const long = "z".repeat(STAGE_MIN_CHARS);
    client.detach();
    remote.stage?.(long);
    const next = nextJob(store, client);
    await remote.get("s1", "nothing");
    expect(next.received.map((message) => message.type)).toEqual(["store-calls"]);
    remote.stage?.(long);
    next.served.refuse();
    await expect(remote.put("s1", [{ key: "late", value: long }])).rejects.toThrow(
      "the job was abandoned",
    );
    expect(await store.stats()).toEqual({ entries: 0, bytes: 0 });
  });

  it("sends ahead at most so many characters a job; the put carries the rest", async () => {
    const store = memory({ max_entry_bytes: 16 * 1024 * 1024, max_bytes: 64 * 1024 * 1024 });
    const { remote, received } = connect(store);
    const most = `${"m".repeat(STAGE_MAX_CHARS - STAGE_MIN_CHARS)}`;
    const more = `${"n".repeat(STAGE_MIN_CHARS)}+`;
    for (const value of [most, more]) remote.stage?.(value);
    await remote.put("s1", [
      { key: "most", value: most },
      { key: "more", value: more },
    ]);
    expect(await store.get("s1", "more")).toBe(more);
    expect(putsSent(received)).toEqual([
      [
        { key: "most", staged: 0 },
        { key: "more", value: more },
      ],
    ]);
  });

  it("refuses a put naming a value that never came", async () => {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1, port2);
    serveStore(port1, memory());
    const results = new Promise<StoreRpcMessage>((resolve) => port2.once("message", resolve));
    port2.postMessage({
      type: "store-calls",
      batch: 0,
      calls: [{ method: "put", args: ["s1", [{ key: "k", staged: 7 }]] }],
    } satisfies StoreRpcMessage);
    const answer = await results;
    expect(answer).toMatchObject({
      type: "store-results",
      results: [{ ok: false, error: { message: expect.stringContaining("staged value 7") } }],
    });
  });
});
