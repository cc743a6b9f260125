import type { Hono } from "hono";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { replayTurns } from "../../bench/turns.js";
import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import { markerIds } from "../../src/expand/markers.js";
import { createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";
import { withoutDeadline } from "../support/app.js";
import { openaiBody } from "../support/bodies.js";
import { TEST_HASH_KEY, testIdOf } from "../support/hash-key.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import { agentBodies, hasSharedCorpus } from "../support/shared-corpus.js";
import { generatedOutputs, messagesOf, redisSuiteSkipped } from "./replicas.js";

const skipped = redisSuiteSkipped("the Redis stash-once tests");
const tools = [{ type: "function", function: { name: "Bash", parameters: {} } }];

/** One command as MONITOR shows it: its name (lower case) and its arguments. */
interface Command {
  readonly name: string;
  readonly args: readonly string[];
}

/** Commands on an original's key (`cg:e:`): its value, its owners, its TTL. */
const onOriginal = (command: Command) => command.args[0]?.startsWith("cg:e:") === true;

/**
 * A warm turn gives back what was sent as it was returned, and every original it replays was
 * put by an earlier turn of the session: the store is sent no command for any of them (§7). The
 * store's lifetime still holds: what was put long enough ago is put again, so it never expires
 * under a session that goes on; and a replica that has not put it, a restart, or a store that
 * lost the session's ledger puts it again.
 */
describe.skipIf(skipped)("originals already stashed, on Redis", () => {
  let server: RedisServer;
  let admin: Redis;
  let monitor: Redis;
  const seen: Command[] = [];
  const stores: Store[] = [];
  let marks = 0;
  let now = 1_000_000;

  beforeAll(async () => {
    server = await startRedisServer();
    admin = new Redis(server.url);
    monitor = await admin.duplicate().monitor();
    monitor.on("monitor", (_time: string, args: string[]) => {
      const [name = "", ...rest] = args;
      seen.push({ name: name.toLowerCase(), args: rest });
    });
  });
  afterAll(async () => {
    monitor?.disconnect();
    admin?.disconnect();
    await Promise.all(stores.map((store) => store.close()));
    await server?.close();
  });

  /** A replica (or a restarted process) on the test's Redis: its own store, clock `now`. */
  async function replica(): Promise<Hono> {
    const config = parseConfig(
      withoutDeadline({
        store: { backend: "redis", redis: { url: server.url } },
        // Every compaction on the event loop, where the injected clock runs.
        limits: { worker_min_bytes: 64 * 1024 * 1024 },
      }),
    );
    const store = createStore(config.store, { onError: () => undefined });
    stores.push(store);
    await vi.waitFor(async () => expect(await store.ready()).toBe(true), { timeout: 10_000 });
    return createApp({ config, store, hashKey: TEST_HASH_KEY, clock: () => now });
  }

  /** What `send` made Redis do: every command from its start to a mark sent after it. */
  async function commandsOf(send: () => Promise<unknown>): Promise<Command[]> {
    const from = seen.length;
    await send();
    const mark = `mark-${++marks}`;
    await admin.echo(mark);
    const at = () => seen.findIndex((command, index) => index >= from && command.args[0] === mark);
    await vi.waitFor(() => expect(at()).toBeGreaterThanOrEqual(0));
    return seen.slice(from, at());
  }

  async function compact(app: Hono, body: string, session: string, cache?: "warm" | "cold") {
    const response = await app.request("/compact", {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        "x-context-guru-session": session,
        ...(cache ? { "x-context-guru-cache": cache } : {}),
      },
    });
    expect(response.status).toBe(200);
    return response.text();
  }

  /** Every marker of `returned` expands, and /rehydrate gives `sent` back byte for byte. */
  async function recovered(app: Hono, returned: string, sent: string, session: string) {
    const headers = { "x-context-guru-session": session };
    const statuses = await Promise.all(
      [...new Set(markerIds(messagesOf(returned)))].map(async (id) => {
        const response = await app.request(`/expand?id=${id}`, { headers });
        return response.status;
      }),
    );
    const response = await app.request("/rehydrate", { method: "POST", body: returned, headers });
    return {
      statuses,
      unresolved: response.headers.get("x-context-guru-unresolved"),
      rehydrated: (await response.text()) === sent,
    };
  }

  const allFound = (found: Awaited<ReturnType<typeof recovered>>) => ({
    statuses: found.statuses.map(() => 200),
    unresolved: "0",
    rehydrated: true,
  });

  it("a warm turn that adds nothing to reduce sends no command for an original", async () => {
    const app = await replica();
    const body = openaiBody(generatedOutputs("once"), { tools });
    const first = await commandsOf(() => compact(app, body, "once", "cold"));
    now += 10_000;
    let returned = "";
    const again = await commandsOf(async () => {
      returned = await compact(app, body, "once", "warm");
    });

    expect(first.filter(onOriginal).length).toBeGreaterThan(0);
    // The ledger's read, then its new head alone.
    expect(again.map((command) => command.name)).toEqual([
      ...["multi", "hgetall", "pexpire", "exec", "get"],
      ...["multi", "hset", "pexpire", "exec"],
    ]);
    const found = await recovered(app, returned, body, "once");
    expect(found.statuses.length).toBeGreaterThan(0);
    expect(found).toEqual(allFound(found));
  });

  it("an original is put again once half the store's lifetime has passed since its put", async () => {
    const app = await replica();
    const body = openaiBody(generatedOutputs("lifetime"), { tools });
    const first = await commandsOf(() => compact(app, body, "lifetime", "cold"));
    // store.ttl_seconds is 1800: at 899 s the put is well inside it, at 900 s it is half gone.
    now += 899_000;
    const inside = await commandsOf(() => compact(app, body, "lifetime", "warm"));
    now += 1_000;
    const half = await commandsOf(() => compact(app, body, "lifetime", "warm"));
    now += 1_000;
    const after = await commandsOf(() => compact(app, body, "lifetime", "warm"));
    const keys = (commands: Command[]) =>
      new Set(commands.filter((command) => command.name === "hset").map(({ args }) => args[0]));

    expect(inside.filter(onOriginal)).toEqual([]);
    expect([...keys(half.filter(onOriginal))].sort()).toEqual(
      [...keys(first.filter(onOriginal))].sort(),
    );
    expect(after.filter(onOriginal)).toEqual([]);
  });

  it("a second replica, a restart and a store that lost the session put what they replay once", async () => {
    const [a, b] = [await replica(), await replica()];
    const body = openaiBody(generatedOutputs("replicas"), { tools });
    const originals = (commands: Command[]) => commands.filter(onOriginal).length;
    const put = await commandsOf(() => compact(a, body, "replicas", "cold"));
    now += 10_000;
    const onB = await commandsOf(() => compact(b, body, "replicas", "warm"));
    now += 10_000;
    const onBAgain = await commandsOf(() => compact(b, body, "replicas", "warm"));
    now += 10_000;
    const onA = await commandsOf(() => compact(a, body, "replicas", "warm"));
    // Redis restarted empty (no persistence): the ledger is gone with the originals.
    await admin.flushall();
    now += 10_000;
    let returned = "";
    const afterLoss = await commandsOf(async () => {
      returned = await compact(a, body, "replicas", "warm");
    });

    expect({
      onB: originals(onB),
      onBAgain: originals(onBAgain),
      onA: originals(onA),
      afterLoss: originals(afterLoss) > 0,
    }).toEqual({ onB: originals(put), onBAgain: 0, onA: 0, afterLoss: true });
    const found = await recovered(b, returned, body, "replicas");
    expect(found).toEqual(allFound(found));
  });

  describe.skipIf(!hasSharedCorpus)("an agent's session from the corpus", () => {
    it("each original is written once while the session goes on, and all come back", async () => {
      const app = await replica();
      const entry = agentBodies().find((body) => body.file === "s0-t049-openai.json");
      if (!entry) throw new Error("s0-t049-openai.json is not in the corpus");
      const turns = replayTurns(entry.provider, entry.body);
      const writes = new Map<string, number>();
      let returned = "";
      for (const turn of turns) {
        const commands = await commandsOf(async () => {
          returned = await compact(app, turn, "corpus");
        });
        for (const { name, args } of commands.filter(onOriginal)) {
          if (name !== "hset") continue;
          // Which value under which key, told apart without printing the value.
          const written = `${args[0]} (${args[2]?.length} chars, ${testIdOf(args[2] ?? "")})`;
          writes.set(written, (writes.get(written) ?? 0) + 1);
        }
        now += 10_000;
      }
      const last = turns.at(-1) ?? "";
      const repeated = await commandsOf(async () => {
        returned = await compact(app, last, "corpus");
      });

      expect(writes.size).toBeGreaterThan(0);
      expect([...writes].filter(([, count]) => count > 1)).toEqual([]);
      expect(repeated.filter(onOriginal)).toEqual([]);
      const found = await recovered(app, returned, last, "corpus");
      expect(found).toEqual(allFound(found));
    }, 120_000);
  });
});
