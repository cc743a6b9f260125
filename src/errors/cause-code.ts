/** An error code such as `ECONNREFUSED`, `ENOTFOUND` or `UND_ERR_SOCKET`: safe to log. */
const CODE = /^[A-Z][A-Z0-9_]{1,63}$/;

/**
 * The system or transport error code behind `error` (fetch wraps it: `TypeError: fetch failed`
 * with the socket error as its `cause`), found by following `cause` a few levels down. Only the
 * code, never a message: messages may carry the address that was dialled.
 */
export function causeCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const { code, cause } = current as { code?: unknown; cause?: unknown };
    if (typeof code === "string" && CODE.test(code)) return code;
    current = cause;
  }
  return undefined;
}
