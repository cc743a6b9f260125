import type { Config } from "../config/schema.js";
import { familyCredential, wireShape } from "../wire/registry.js";
import type { Provider, Upstream } from "../wire/types.js";
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

/** A request to one upstream at a path of its own (`/models`, `/v1/messages/count_tokens`). */
export interface UpstreamRequest extends Omit<UpstreamCall, "provider" | "body"> {
  readonly upstream: Upstream;
  /** The path below the upstream's configured base URL, as the provider's SDKs lay it out. */
  readonly path: string;
  readonly method: string;
  /** The body text, sent as it is; none for a GET. */
  readonly body?: string | undefined;
}

/**
 * Sends requests to the configured upstream models. The URL comes from configuration only: the
 * base URL of the upstream family, and the path below it (a wire shape's for a proxy route).
 * Resolves with the upstream response (any status) as soon as its headers arrive; rejects with
 * UpstreamUnreachableError (502), UpstreamTimeoutError (504, no headers within the first-byte
 * timeout) or ClientGoneError. There is no whole-stream timeout.
 */
export class UpstreamClient {
  constructor(
    private readonly config: Config["upstream"],
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  /** A proxy route's request: POST the body to its wire shape's upstream and path. */
  send(call: UpstreamCall): Promise<Response> {
    const { family, path } = wireShape(call.provider).upstream;
    return this.request({
      upstream: family,
      path,
      method: "POST",
      body: call.body,
      headers: call.headers,
      search: call.search,
      signal: call.signal,
    });
  }

  async request(call: UpstreamRequest): Promise<Response> {
    const target = this.config[call.upstream];
    const timeoutMs = this.config.first_byte_timeout_ms;
    const controller = new AbortController();
    const onClientGone = () => controller.abort(new ClientGoneError());
    if (call.signal.aborted) throw new ClientGoneError();
    call.signal.addEventListener("abort", onClientGone, { once: true });
    const timer = setTimeout(
      () => controller.abort(new UpstreamTimeoutError(timeoutMs)),
      timeoutMs,
    );
    const base = target.base_url.replace(/\/+$/, "");
    const body = call.body !== undefined;
    try {
      const response = await this.fetchImpl(`${base}${call.path}${call.search}`, {
        method: call.method,
        headers: upstreamRequestHeaders(
          call.headers,
          familyCredential(call.upstream),
          target.api_key,
          body,
        ),
        ...(body ? { body: call.body } : {}),
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
