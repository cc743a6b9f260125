import type { Config } from "../config/schema.js";
import { wireShape } from "../wire/registry.js";
import type { Provider } from "../wire/types.js";
import { ClientGoneError, UpstreamTimeoutError, UpstreamUnreachableError } from "./errors.js";
import { upstreamRequestHeaders } from "./headers.js";

export interface UpstreamCall {
  readonly provider: Provider;
  /** The request body text, sent as it is. */
  readonly body: string;
  /** The client's request headers; filtered before they go upstream. */
  readonly headers: Headers;
  /** The client's query string (`?beta=true`), or "". */
  readonly search: string;
  /** Aborts when the client goes away; the upstream call is aborted with it. */
  readonly signal: AbortSignal;
}

/**
 * Sends requests to the configured upstream models. The URL comes from configuration only: the
 * base URL of the upstream that serves the body's wire shape, and the shape's path below it.
 * Resolves with the upstream response (any status) as soon as its headers arrive; rejects with
 * UpstreamUnreachableError (502), UpstreamTimeoutError (504, no headers within the first-byte
 * timeout) or ClientGoneError. There is no whole-stream timeout.
 */
export class UpstreamClient {
  constructor(
    private readonly config: Config["upstream"],
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  url(provider: Provider): string {
    const { family, path } = wireShape(provider).upstream;
    return `${this.config[family].base_url.replace(/\/+$/, "")}${path}`;
  }

  async send(call: UpstreamCall): Promise<Response> {
    const { upstream } = wireShape(call.provider);
    const target = this.config[upstream.family];
    const timeoutMs = this.config.first_byte_timeout_ms;
    const controller = new AbortController();
    const onClientGone = () => controller.abort(new ClientGoneError());
    if (call.signal.aborted) throw new ClientGoneError();
    call.signal.addEventListener("abort", onClientGone, { once: true });
    const timer = setTimeout(
      () => controller.abort(new UpstreamTimeoutError(timeoutMs)),
      timeoutMs,
    );
    try {
      const response = await this.fetchImpl(`${this.url(call.provider)}${call.search}`, {
        method: "POST",
        headers: upstreamRequestHeaders(call.headers, upstream, target.api_key),
        body: call.body,
        signal: controller.signal,
        redirect: "manual",
      });
      return response;
    } catch (error) {
      const reason: unknown = controller.signal.reason;
      if (reason instanceof UpstreamTimeoutError || reason instanceof ClientGoneError) throw reason;
      throw new UpstreamUnreachableError({ cause: error });
    } finally {
      clearTimeout(timer);
      // The body may still be streaming: keep the client's abort wired to it until it ends.
    }
  }
}
