import { LRUCache } from "lru-cache";
import type { ModelConfig } from "../config/schema.js";
import type { IncomingRequest } from "../pipeline/types.js";
import { ModelClient } from "./client.js";
import { resolveEndpoint } from "./endpoint.js";
import { ModelNotConfiguredError } from "./errors.js";
import { Limiter } from "./limiter.js";

export interface ModelPoolOptions {
  /** Defaults to the global fetch, looked up at call time. */
  readonly fetch?: typeof fetch;
  /** Where `api_key_env` is read; defaults to process.env. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** First retry backoff in ms (default 250), doubling per retry, capped at `retryMaxMs` (2000). */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
}

/** Distinct endpoints whose concurrency caps are tracked at once. */
const MAX_ENDPOINTS = 256;

/**
 * Hands out model clients for component options. Clients of the same endpoint (URL and model)
 * share one concurrency cap, whichever component or request they serve.
 */
export class ModelPool {
  readonly #limiters = new LRUCache<string, Limiter>({ max: MAX_ENDPOINTS });
  readonly #fetch: typeof fetch;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #retryBaseMs: number;
  readonly #retryMaxMs: number;

  constructor(options: ModelPoolOptions = {}) {
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#env = options.env ?? process.env;
    this.#retryBaseMs = options.retryBaseMs ?? 250;
    this.#retryMaxMs = options.retryMaxMs ?? 2000;
  }

  /** A client for `config`, or why there is none (the component then leaves the request alone). */
  clientFor(
    config: ModelConfig,
    incoming: IncomingRequest | undefined,
  ): ModelClient | ModelNotConfiguredError {
    const resolved = resolveEndpoint(config, incoming, this.#env);
    if (!resolved.endpoint) return new ModelNotConfiguredError(resolved.missing);
    const { endpoint } = resolved;
    const limiterKey = `${endpoint.key} ${config.max_concurrency}`;
    let limiter = this.#limiters.get(limiterKey);
    if (!limiter) {
      limiter = new Limiter(config.max_concurrency);
      this.#limiters.set(limiterKey, limiter);
    }
    return new ModelClient(endpoint, {
      fetch: this.#fetch,
      limiter,
      timeoutMs: config.timeout_ms,
      maxRetries: config.max_retries,
      retryBaseMs: this.#retryBaseMs,
      retryMaxMs: this.#retryMaxMs,
    });
  }
}
