import type { Endpoint } from "./endpoint.js";
import {
  ModelAbortedError,
  ModelStatusError,
  ModelTimeoutError,
  ModelUnreachableError,
} from "./errors.js";
import type { Limiter } from "./limiter.js";
import { type ModelPrompt, type ParsedAnswer, parseAnswer, requestBody } from "./protocol.js";

/** An answer and what it took to get it. */
export interface ModelAnswer extends ParsedAnswer {
  readonly model: string;
  /** Requests sent, retries included. */
  readonly attempts: number;
}

export interface ModelClientOptions {
  readonly fetch: typeof fetch;
  /** Shared by every client of the same endpoint. */
  readonly limiter: Limiter;
  /** Deadline of one whole call: waiting for a slot, every attempt and every backoff. */
  readonly timeoutMs: number;
  /** Further attempts after a 429 or 5xx answer. */
  readonly maxRetries: number;
  /** First backoff; doubles per retry. A `retry-after` header in seconds wins, up to the cap. */
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
}

/**
 * Calls one OpenAI- or Anthropic-compatible chat endpoint. Retries only on 429 and 5xx, with
 * exponential backoff; everything else fails at once. Every failure is a ModelError whose message
 * names neither the URL nor a credential.
 */
export class ModelClient {
  constructor(
    readonly endpoint: Endpoint,
    private readonly options: ModelClientOptions,
  ) {}

  async complete(prompt: ModelPrompt, signal: AbortSignal): Promise<ModelAnswer> {
    const { endpoint, options } = this;
    const deadline = AbortSignal.timeout(options.timeoutMs);
    const combined = AbortSignal.any([signal, deadline]);
    const failure = (cause: unknown) => {
      if (deadline.aborted) return new ModelTimeoutError(options.timeoutMs, { cause });
      if (signal.aborted) return new ModelAbortedError({ cause });
      return new ModelUnreachableError({ cause });
    };
    let release: () => void;
    try {
      release = await options.limiter.acquire(combined);
    } catch (error) {
      throw failure(error);
    }
    const body = requestBody(endpoint.provider, endpoint.model, prompt);
    try {
      for (let attempt = 1; ; attempt++) {
        let response: Response;
        let text: string;
        try {
          response = await options.fetch(endpoint.url, {
            method: "POST",
            headers: endpoint.headers,
            body,
            signal: combined,
            redirect: "error",
          });
          text = await response.text();
        } catch (error) {
          throw failure(error);
        }
        if (response.ok) {
          return {
            ...parseAnswer(endpoint.provider, text),
            model: endpoint.model,
            attempts: attempt,
          };
        }
        if (!retryable(response.status) || attempt > options.maxRetries) {
          throw new ModelStatusError(response.status, attempt);
        }
        try {
          await pause(this.#backoff(attempt, response.headers.get("retry-after")), combined);
        } catch (error) {
          throw failure(error);
        }
      }
    } finally {
      release();
    }
  }

  #backoff(attempt: number, retryAfter: string | null): number {
    const { retryBaseMs, retryMaxMs } = this.options;
    const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
    const wanted =
      Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : retryBaseMs * 2 ** (attempt - 1);
    return Math.min(wanted, retryMaxMs);
  }
}

function retryable(status: number): boolean {
  return status === 429 || status >= 500;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
