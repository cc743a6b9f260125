import { causeCode } from "../errors/cause-code.js";

/** Why a model call gave no usable answer; reported per call (§4 run report), never thrown past a component. */
export type ModelFailure =
  | "not_configured"
  | "unreachable"
  | "timeout"
  | "aborted"
  | "http_status"
  | "bad_response";

/** A cheap-model call that gave no answer. The message never names the endpoint URL or a key. */
export class ModelError extends Error {
  override readonly name: string = "ModelError";
  constructor(
    readonly failure: ModelFailure,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** No endpoint, model or credentials to call: the component no-ops. */
export class ModelNotConfiguredError extends ModelError {
  override readonly name = "ModelNotConfiguredError";
  constructor(detail: string) {
    super("not_configured", `model not configured: ${detail}`);
  }
}

/** The endpoint answered with a non-2xx status (after any retries). */
export class ModelStatusError extends ModelError {
  override readonly name = "ModelStatusError";
  constructor(
    readonly status: number,
    readonly attempts: number,
  ) {
    super(
      "http_status",
      `model answered HTTP ${status} (${attempts} attempt${attempts === 1 ? "" : "s"})`,
    );
  }
}

/** No complete answer within `timeout_ms` (retries and queueing included). */
export class ModelTimeoutError extends ModelError {
  override readonly name = "ModelTimeoutError";
  constructor(
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super("timeout", `no model answer within ${timeoutMs} ms`, options);
  }
}

/** The caller gave up (the request's own deadline passed). */
export class ModelAbortedError extends ModelError {
  override readonly name = "ModelAbortedError";
  constructor(options?: ErrorOptions) {
    super("aborted", "model call aborted", options);
  }
}

/** The connection failed; the message carries the socket's error code (`ECONNREFUSED`), no address. */
export class ModelUnreachableError extends ModelError {
  override readonly name = "ModelUnreachableError";
  constructor(options: ErrorOptions & { cause: unknown }) {
    const code = causeCode(options.cause);
    super("unreachable", `model endpoint unreachable${code ? ` (${code})` : ""}`, options);
  }
}

/** A 2xx answer that is not the provider's response shape or carries no text. */
export class ModelResponseError extends ModelError {
  override readonly name = "ModelResponseError";
  constructor(detail: string, options?: ErrorOptions) {
    super("bad_response", `unusable model response: ${detail}`, options);
  }
}
