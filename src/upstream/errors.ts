/** The upstream model could not be reached; the message never names the upstream URL. */
export class UpstreamUnreachableError extends Error {
  override readonly name = "UpstreamUnreachableError";
  readonly status = 502;
  constructor(options?: ErrorOptions) {
    super("upstream connection failed", options);
  }
}

/** The upstream sent no response headers within the first-byte timeout. */
export class UpstreamTimeoutError extends Error {
  override readonly name = "UpstreamTimeoutError";
  readonly status = 504;
  constructor(
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(`upstream sent no response within ${timeoutMs} ms`, options);
  }
}

/** The client went away while the upstream call was in flight; nobody is left to answer. */
export class ClientGoneError extends Error {
  override readonly name = "ClientGoneError";
  constructor(options?: ErrorOptions) {
    super("client disconnected", options);
  }
}

export type UpstreamError = UpstreamUnreachableError | UpstreamTimeoutError;
