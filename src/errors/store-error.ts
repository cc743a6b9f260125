/** A store call that did not do what was asked; the caller reverts the offload (§7). */
export class StoreError extends Error {
  override readonly name: string = "StoreError";
  constructor(
    readonly operation: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(`store ${operation}: ${message}`, options);
  }
}

/** The call did not settle within `store.timeout_ms`. */
export class StoreTimeoutError extends StoreError {
  override readonly name = "StoreTimeoutError";
  constructor(
    operation: string,
    readonly timeoutMs: number,
    options?: ErrorOptions,
  ) {
    super(operation, `no answer within ${timeoutMs} ms`, options);
  }
}

/** The backend could not be reached or refused the command; `cause` holds its error. */
export class StoreUnavailableError extends StoreError {
  override readonly name = "StoreUnavailableError";
  constructor(operation: string, options: ErrorOptions & { cause: unknown }) {
    super(operation, `backend unavailable (${describe(options.cause)})`, options);
  }
}

/**
 * One entry of a put exceeds `store.max_entry_bytes` (or the whole store's byte bound). Nothing
 * of that put is kept, so the caller can leave every output of the call verbatim.
 */
export class StoreEntryTooLargeError extends StoreError {
  override readonly name = "StoreEntryTooLargeError";
  constructor(
    readonly key: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super("put", `entry ${key} is ${bytes} bytes, more than the limit of ${limit}`);
  }
}

/** A single put holds more than the store can keep at once (entries or bytes); nothing is kept. */
export class StoreCapacityError extends StoreError {
  override readonly name = "StoreCapacityError";
  constructor(message: string) {
    super("put", message);
  }
}

function describe(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
