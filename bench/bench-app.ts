import { createApp, defaultPool } from "../src/app.js";
import { type CompactOptions, Compactor } from "../src/compact/compactor.js";
import type { WorkerPool } from "../src/compaction/worker-pool.js";
import { components } from "../src/components/registry.js";
import { parseConfig } from "../src/config/load.js";
import type { ConfigInput } from "../src/config/schema.js";
import type { Head } from "../src/session/ledger.js";
import { createStore } from "../src/store/create.js";
import type { Store } from "../src/store/types.js";
import type { SessionStash } from "./needed-facts/turn-facts.js";
import { type Elapsed, startClock } from "./timing.js";

export type Mode = "reversible" | "clean";

/**
 * The marker key of every bench service. Marker ids are part of the prompt, and how many tokens
 * an id takes depends on its letters: with a random key per run, reversible figures would move
 * by a few tokens from run to run. One fixed key makes a rerun give the same figures.
 */
export const BENCH_HASH_KEY = "cg-compactor-bench-marker-key";

/** `cache.pricing` of a bench service: the default (`auto`) unless one is named. */
export type BenchPricing = NonNullable<NonNullable<ConfigInput["cache"]>["pricing"]>;

/**
 * Reversible: the defaults (memory store, full markers). Clean: store disabled, markers off.
 * `pricing` sets `cache.pricing` (`prefill-only` gives the frozen policy without priced breaks).
 */
export function modeConfig(
  mode: Mode,
  preset: string | undefined,
  pricing?: BenchPricing,
): ConfigInput {
  const base: ConfigInput = {
    // What the service returns is measured, not how soon: on a loaded machine a turn past the
    // shipped deadline would come back as it came and count as a broken prefix it is not.
    limits: { compact_timeout_ms: 600_000 },
    ...(preset === undefined ? {} : { preset }),
    ...(pricing === undefined ? {} : { cache: { pricing } }),
  };
  return mode === "clean" ? { ...base, store: { enabled: false }, marker_mode: "off" } : base;
}

export interface CompactCall {
  /** Time of the whole request, response body read included. */
  readonly elapsed: Elapsed;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** The response body. */
  readonly text: string;
  /** What the service treated the request as, and why (`x-context-guru-cache`, `-reason`). */
  readonly cache: string;
  readonly cacheReason: string;
}

/**
 * A fresh service (own store, token memo, output memo and worker pool) that answers POST
 * /compact in-process, and beside it a bare Compactor with its own store and memos: the same
 * work without HTTP. Start it with `BenchApp.start` (its workers loaded, as a running server's
 * are) and close it when done.
 */
export class BenchApp {
  readonly #app: ReturnType<typeof createApp>;
  readonly #core: Compactor;
  readonly #pool: WorkerPool;
  readonly #store: Store;

  private constructor(mode: Mode, preset: string | undefined, pricing?: BenchPricing) {
    const config = parseConfig(modeConfig(mode, preset, pricing));
    const store = createStore(config.store);
    this.#store = store;
    this.#pool = defaultPool(config, store, BENCH_HASH_KEY);
    this.#app = createApp({ config, store, hashKey: BENCH_HASH_KEY, pool: this.#pool });
    this.#core = new Compactor({
      config,
      store: createStore(config.store),
      registry: components,
      hashKey: BENCH_HASH_KEY,
    });
  }

  static async start(
    mode: Mode,
    preset: string | undefined,
    pricing?: BenchPricing,
  ): Promise<BenchApp> {
    const app = new BenchApp(mode, preset, pricing);
    await app.#pool.warm();
    return app;
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  /**
   * What the service holds for one session: the original behind a marker id as GET /expand
   * gives it to that session (remembered: an id names one original), and the ledger's decision
   * for each tool output of the request with `messages` messages (its latest head of that
   * length).
   */
  stash(session: string): SessionStash {
    const originals = new Map<string, string | undefined>();
    return {
      original: async (id) => {
        if (originals.has(id)) return originals.get(id);
        const response = await this.#app.request(`/expand?id=${encodeURIComponent(id)}`, {
          headers: { "x-context-guru-session": session },
        });
        const original = response.status === 200 ? await response.text() : undefined;
        originals.set(id, original);
        return original;
      },
      decisions: async (messages) => {
        const ledger = await this.#store.ledger(session);
        let latest: Head | undefined;
        for (const head of ledger.heads.values()) {
          if (head.messages === messages && (!latest || head.at >= latest.at)) latest = head;
        }
        return latest?.outputs;
      },
    };
  }

  /** The Compactor alone: parse, scan, pipeline, stash, write back. */
  async compactCore(body: string, options: CompactOptions = {}): Promise<Elapsed> {
    const stop = startClock();
    await this.#core.compact(body, options);
    return stop();
  }

  /**
   * POST /compact as a client sends it (with content-length). The clock covers the service's
   * side: from a built request to the response body read back, not the client building it.
   */
  async compact(
    body: string,
    session?: string,
    extra: Readonly<Record<string, string>> = {},
  ): Promise<CompactCall> {
    const headers: Record<string, string> = {
      ...extra,
      "content-type": "application/json",
      "content-length": String(Buffer.byteLength(body)),
    };
    if (session !== undefined) headers["x-context-guru-session"] = session;
    const request = new Request("http://localhost/compact", { method: "POST", body, headers });
    const stop = startClock();
    const response = await this.#app.request(request);
    const text = await response.text();
    const elapsed = stop();
    if (response.status !== 200) throw new Error(`POST /compact answered ${response.status}`);
    return {
      elapsed,
      tokensBefore: Number(response.headers.get("x-context-guru-tokens-before") ?? Number.NaN),
      tokensAfter: Number(response.headers.get("x-context-guru-tokens-after") ?? Number.NaN),
      text,
      cache: response.headers.get("x-context-guru-cache") ?? "",
      cacheReason: response.headers.get("x-context-guru-cache-reason") ?? "",
    };
  }
}
