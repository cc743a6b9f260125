import { createApp } from "../src/app.js";
import { parseConfig } from "../src/config/load.js";
import type { ConfigInput } from "../src/config/schema.js";
import { createStore } from "../src/store/create.js";
import { type Elapsed, startClock } from "./timing.js";

export type Mode = "reversible" | "clean";

/** Reversible: the defaults (memory store, full markers). Clean: store disabled, markers off. */
export function modeConfig(mode: Mode, preset: string | undefined): ConfigInput {
  const base: ConfigInput = preset === undefined ? {} : { preset };
  return mode === "clean" ? { ...base, store: { enabled: false }, marker_mode: "off" } : base;
}

export interface CompactCall {
  /** Time of the whole request, response body read included. */
  readonly elapsed: Elapsed;
  readonly tokensBefore: number;
  readonly tokensAfter: number;
  /** The response body. */
  readonly text: string;
}

/** A fresh service (own store, token memo and output memo) that answers POST /compact in-process. */
export class BenchApp {
  readonly #app: ReturnType<typeof createApp>;

  constructor(mode: Mode, preset: string | undefined) {
    const config = parseConfig(modeConfig(mode, preset));
    this.#app = createApp({ config, store: createStore(config.store) });
  }

  async compact(body: string, session?: string): Promise<CompactCall> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (session !== undefined) headers["x-context-guru-session"] = session;
    const stop = startClock();
    const response = await this.#app.request("/compact", { method: "POST", body, headers });
    const text = await response.text();
    const elapsed = stop();
    if (response.status !== 200) throw new Error(`POST /compact answered ${response.status}`);
    return {
      elapsed,
      tokensBefore: Number(response.headers.get("x-context-guru-tokens-before") ?? Number.NaN),
      tokensAfter: Number(response.headers.get("x-context-guru-tokens-after") ?? Number.NaN),
      text,
    };
  }
}
