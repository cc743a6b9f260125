import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/**
 * Optional bearer token (§10) for the routes that read stashed content or operational data.
 * Without a token configured every request passes. The comparison runs over SHA-256 digests of
 * equal length, in constant time, so neither the token nor its length leaks through timing.
 */
export function bearerAuth(token: string | undefined): MiddlewareHandler {
  if (token === undefined) return (_context, next) => next();
  const expected = digest(token);
  return async (context, next) => {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(context.req.header("authorization") ?? "");
    const presented = match?.[1];
    if (presented !== undefined && timingSafeEqual(digest(presented), expected)) {
      await next();
      return;
    }
    context.header("www-authenticate", 'Bearer realm="cg-compactor"');
    return context.json({ error: "missing or invalid bearer token" }, 401);
  };
}
