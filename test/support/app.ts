import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import type { Config, ConfigInput } from "../../src/config/schema.js";
import type { Registry } from "../../src/pipeline/run.js";
import { createStore } from "../../src/store/create.js";
import type { Store } from "../../src/store/types.js";

export interface TestApp {
  readonly app: ReturnType<typeof createApp>;
  readonly config: Config;
  readonly store: Store;
}

/**
 * The deadline of a test's compactions unless it sets its own: a test of what compaction does
 * must not depend on how loaded the machine is (tests of the deadline set `compact_timeout_ms`).
 */
export const NO_DEADLINE_MS = 600_000;

/** `input` with `limits.compact_timeout_ms` at NO_DEADLINE_MS unless it sets one. */
export function withoutDeadline(input: ConfigInput): ConfigInput {
  return { ...input, limits: { compact_timeout_ms: NO_DEADLINE_MS, ...input.limits } };
}

/** An app over the given config (defaults applied) with its own in-memory store. */
export function testApp(
  input: ConfigInput = {},
  options: { registry?: Registry; store?: Store; clock?: () => number } = {},
): TestApp {
  const config = parseConfig(withoutDeadline(input));
  const store =
    options.store ?? createStore(config.store, options.clock ? { clock: options.clock } : {});
  const app = createApp({
    config,
    store,
    ...(options.registry ? { registry: options.registry } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
  });
  return { app, config, store };
}

/** Clean mode: store disabled, marker_mode off. */
export const CLEAN: ConfigInput = { store: { enabled: false }, marker_mode: "off" };

/**
 * Mask by age alone, keeping the newest three outputs and nothing older for need: what the tests
 * of the ledger, the routes and the store count masked outputs by, whatever mask's defaults are.
 */
export const MASK_BY_AGE = {
  components: { mask: { keep_recent: 3, working_set_tokens: 0 } },
} as const satisfies ConfigInput;

export function postCompact(
  app: TestApp["app"],
  body: string | Uint8Array,
  options: { query?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  return Promise.resolve(
    app.request(`/compact${options.query ?? ""}`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", ...options.headers },
    }),
  );
}

/**
 * The request header of a body decided whole (§4a): components that reach back (mask,
 * failed_run, summaries) run only on a request whose head may be re-decided.
 */
export const COLD: Readonly<Record<string, string>> = { "x-context-guru-cache": "cold" };
