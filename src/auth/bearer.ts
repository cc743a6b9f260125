import { createHash, timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";

const digest = (text: string) => createHash("sha256").update(text, "utf8").digest();

/**
 * Whether a presented token is the configured one. The comparison runs over SHA-256 digests of
 * equal length, in constant time, so neither the token nor its length leaks through timing.
 */
export function tokenMatcher(token: string): (presented: string | undefined) => boolean {
  const expected = digest(token);
  return (presented) => presented !== undefined && timingSafeEqual(digest(presented), expected);
}

/** The token of an `authorization: Bearer <token>` header, if there is one. */
export function bearerToken(context: Context): string | undefined {
  return /^Bearer[ ]+(\S+)\s*$/i.exec(context.req.header("authorization") ?? "")?.[1];
}

/** The one answer to a request without the right token. */
export function unauthorized(context: Context): Response {
  context.header("www-authenticate", 'Bearer realm="cg-compactor"');
  return context.json({ error: "missing or invalid bearer token" }, 401);
}

/**
 * Optional bearer token (§10) for the routes that read stashed content or operational data.
 * Without a token configured every request passes.
 */
export function bearerAuth(token: string | undefined): MiddlewareHandler {
  if (token === undefined) return (_context, next) => next();
  const matches = tokenMatcher(token);
  return async (context, next) => {
    if (matches(bearerToken(context))) {
      await next();
      return;
    }
    return unauthorized(context);
  };
}
