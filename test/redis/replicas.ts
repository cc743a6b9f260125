import type { Hono } from "hono";
import { afterAll, beforeAll, vi } from "vitest";
import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { contentHasher, markerIds } from "../../src/expand/markers.js";
import { resolveHashKey } from "../../src/hash-key/resolve.js";
import { createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";
import { withoutDeadline } from "../support/app.js";
import { jsonArrayOutput, logOutput } from "../support/bodies.js";
import { findRedisServer, type RedisServer, startRedisServer } from "../support/redis-server.js";

const installed = findRedisServer() !== undefined;
const required = process.env.CI === "true";

/**
 * Whether the Redis suites run: always under CI=true (where a missing redis-server fails them),
 * else only when redis-server is installed. Warns once per file when they are skipped.
 */
export function redisSuiteSkipped(suite: string): boolean {
  if (installed || required) return false;
  console.warn(`redis-server is not installed: skipping ${suite}`);
  return true;
}

/** One replica of the service: its own app, Redis-backed store and marker key. */
export interface Replica {
  readonly app: Hono;
  readonly store: Store;
  /** The content ids this replica writes. */
  readonly idOf: (text: string) => string;
  /** Closes the store and the marker key's connection. */
  close(): Promise<void>;
}

/**
 * A replica over `url` with the defaults (agent preset, full markers) and `overrides`, its
 * marker key resolved as the server does at start. Each call makes new clients, as a separate
 * pod would.
 */
export async function replica(url: string, overrides: ConfigInput = {}): Promise<Replica> {
  const { store: storeOverrides, ...rest } = withoutDeadline(overrides);
  const config = parseConfig({
    ...rest,
    store: { ...storeOverrides, backend: "redis", redis: { url, ...storeOverrides?.redis } },
  });
  const hashKey = await resolveHashKey(config.store);
  const store = createStore(config.store, { onError: () => undefined });
  return {
    app: createApp({ config, store, hashKey: hashKey.key }),
    store,
    idOf: contentHasher(hashKey.key),
    close: async () => {
      await Promise.all([store.close(), hashKey.close()]);
    },
  };
}

/** Two replicas on one redis-server of their own, started before a suite's tests and closed after. */
export interface ReplicaPair {
  readonly server: RedisServer;
  readonly a: Replica;
  readonly b: Replica;
}

/**
 * Registers the suite's beforeAll and afterAll for two replicas over one new redis-server
 * (`options` as startRedisServer's); the pair's members are there once the tests run.
 */
export function replicaPair(options?: Parameters<typeof startRedisServer>[1]): ReplicaPair {
  const pair: { server?: RedisServer; a?: Replica; b?: Replica } = {};
  beforeAll(async () => {
    const server = await startRedisServer(undefined, options);
    pair.server = server;
    [pair.a, pair.b] = await Promise.all([replica(server.url), replica(server.url)]);
    await Promise.all([whenReady(pair.a), whenReady(pair.b)]);
  });
  afterAll(async () => {
    await Promise.all([pair.a?.close(), pair.b?.close()]);
    await pair.server?.close();
  });
  return pair as ReplicaPair;
}

/** Waits until `/readyz` of the replica answers 200 (its client is connected). */
export async function whenReady(replica: Replica, timeout = 10_000): Promise<void> {
  await vi.waitFor(
    async () => {
      const response = await replica.app.request("/readyz");
      if (response.status !== 200) throw new Error(`/readyz answered ${response.status}`);
    },
    { timeout, interval: 50 },
  );
}

export interface Compacted {
  readonly status: number;
  readonly text: string;
  /** `x-context-guru-markers`; null when the route answered without running the compactor. */
  readonly markersHeader: string | null;
  /** Distinct marker ids in the response's messages that the request did not already carry. */
  readonly ids: readonly string[];
}

/**
 * POST /compact of `body` under `session` on `replica`; `cold` by default, so the body is
 * decided whole (§4a), `warm` to give an already-sent prefix back as it was.
 */
export async function compactOn(
  replica: Replica,
  body: string,
  session: string,
  cache: "cold" | "warm" = "cold",
): Promise<Compacted> {
  const response = await replica.app.request("/compact", {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "x-context-guru-session": session,
      "x-context-guru-cache": cache,
    },
  });
  const text = await response.text();
  const foreign = new Set(markerIds(body));
  const ids = [...new Set(markerIds(messagesOf(text)))].filter((id) => !foreign.has(id));
  return {
    status: response.status,
    text,
    markersHeader: response.headers.get("x-context-guru-markers"),
    ids,
  };
}

/** GET /expand of `id` for `session` on `replica`: status and body. */
export async function expandOn(
  replica: Replica,
  id: string,
  session: string,
): Promise<{ status: number; text: string }> {
  const response = await replica.app.request(`/expand?id=${id}`, {
    headers: { "x-context-guru-session": session },
  });
  return { status: response.status, text: await response.text() };
}

/** The decoded strings of a body's messages, joined (markers are looked for there). */
export function messagesOf(text: string): string {
  const parsed = JSON.parse(text) as { messages?: unknown };
  return JSON.stringify(parsed.messages ?? null);
}

/**
 * Tool outputs large enough for the agent preset to offload the older ones behind markers:
 * distinct build logs and a JSON array, tagged by `seed` so every call gives new content.
 */
export function generatedOutputs(seed: string): string[] {
  return [
    logOutput(120, `${seed}-a`),
    logOutput(120, `${seed}-b`),
    jsonArrayOutput(40).replaceAll("service-", `${seed}-service-`),
    logOutput(120, `${seed}-d`),
    "done",
  ];
}
