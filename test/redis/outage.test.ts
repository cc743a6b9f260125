import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { markerIds } from "../../src/expand/markers.js";
import { anthropicBody, openaiBody } from "../support/bodies.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import {
  type Compacted,
  compactOn,
  expandOn,
  generatedOutputs,
  type Replica,
  redisSuiteSkipped,
  replica,
  replicaPair,
  whenReady,
} from "./replicas.js";

const skipped = redisSuiteSkipped("the Redis outage tests");

/** Polls `/readyz` until it answers `status`, at most 200 times 50 ms apart. */
/**
 * Whether `text` is `body` with at most lossless reformats of its JSON outputs: no marker, and
 * every other string of it byte for byte as sent (Redis being down reverts every offload).
 */
function onlyReformatted(body: string, text: string): boolean {
  if (markerIds(text).length > 0) return false;
  const sent = JSON.parse(body) as { messages: unknown[] };
  const got = JSON.parse(text) as { messages: unknown[] };
  return sent.messages.every((message, index) => {
    const same = JSON.stringify(message) === JSON.stringify(got.messages[index]);
    return same || JSON.stringify(message).includes("service-1");
  });
}

async function readyzBecomes(target: Replica, status: number): Promise<number> {
  let last = 0;
  for (let attempt = 0; attempt < 200; attempt++) {
    last = (await target.app.request("/readyz")).status;
    if (last === status) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return last;
}

/** Two bodies per phase, both shapes, each with its own outputs (so each needs new stashes). */
function phaseBodies(phase: string): { session: string; body: string }[] {
  return [
    { session: `${phase}-openai`, body: openaiBody(generatedOutputs(`${phase}-o`)) },
    { session: `${phase}-anthropic`, body: anthropicBody(generatedOutputs(`${phase}-a`)) },
  ];
}

interface Sent {
  readonly phase: string;
  readonly session: string;
  readonly body: string;
  readonly response: Compacted;
}

describe.skipIf(skipped)("Redis stopped mid-run", () => {
  const pair = replicaPair({ persistent: true });

  it("no marker without a stash: every marker of every 200 resolves once Redis is back", async () => {
    const sent: Sent[] = [];
    const run = async (phase: string) => {
      for (const { session, body } of phaseBodies(phase)) {
        sent.push({ phase, session, body, response: await compactOn(pair.a, body, session) });
      }
    };

    await run("before");
    await pair.server.stop();
    const readyWhileDown = await readyzBecomes(pair.a, 503);
    await run("during");
    await pair.server.start();
    const readyAfter = await readyzBecomes(pair.a, 200);
    await run("after");

    // While Redis was down the compactor itself answered (its headers are there, so the route's
    // deadline did not cut in): offloads reverted, no marker, only the JSON output repacked.
    const during = sent.filter((entry) => entry.phase === "during");
    expect(
      during.map(({ response, body }) => [
        response.status,
        response.markersHeader,
        onlyReformatted(body, response.text),
      ]),
    ).toEqual(during.map(() => [200, "0", true]));
    for (const phase of ["before", "after"]) {
      const ids = sent.filter((entry) => entry.phase === phase).map((entry) => entry.response.ids);
      expect(ids.every((list) => list.length > 0)).toBe(true);
    }

    // Both replicas have reconnected (B's client retries on its own schedule); then each id is
    // asked for in turn, so a loaded machine cannot push a burst of reads past the store deadline.
    const readyB = await readyzBecomes(pair.b, 200);
    const resolved: { id: string; status: number }[] = [];
    for (const { session, response } of sent) {
      for (const id of response.ids) {
        for (const replica of [pair.a, pair.b]) {
          resolved.push({ id, status: (await expandOn(replica, id, session)).status });
        }
      }
    }
    expect({
      readyWhileDown,
      readyAfter,
      readyB,
      unresolved: resolved.filter((r) => r.status !== 200),
    }).toEqual({
      readyWhileDown: 503,
      readyAfter: 200,
      readyB: 200,
      unresolved: [],
    });
    expect(resolved.length).toBeGreaterThan(0);
  });
});

describe.skipIf(skipped)("Redis paused (SIGSTOP)", () => {
  let server: RedisServer;
  let a: Replica;

  beforeAll(async () => {
    server = await startRedisServer();
    a = await replica(server.url);
    await whenReady(a);
  });
  afterEach(() => server.resume());
  afterAll(async () => {
    await a?.close();
    await server?.close();
  });

  it("/compact answers within the compact deadline, offloads reverted, no marker", async () => {
    const body = openaiBody(generatedOutputs("paused"));
    server.pause();
    const response = await compactOn(a, body, "paused");
    const ready = (await a.app.request("/readyz")).status;
    server.resume();
    await whenReady(a);
    // The compactor answered (headers present) after the store deadline reverted the offloads.
    const reformatted = onlyReformatted(body, response.text);
    expect([response.status, response.markersHeader, reformatted, ready]).toEqual([
      200,
      "0",
      true,
      503,
    ]);
    const after = await compactOn(a, body, "paused");
    const statuses = await Promise.all(
      after.ids.map(async (id) => (await expandOn(a, id, "paused")).status),
    );
    expect([after.ids.length > 0, statuses]).toEqual([true, after.ids.map(() => 200)]);
  });
});
