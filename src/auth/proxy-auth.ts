import type { MiddlewareHandler } from "hono";
import { bearerToken, tokenMatcher, unauthorized } from "./bearer.js";

/**
 * No open relay (§10): a proxy route whose provider has a gateway key
 * (`upstream.<provider>.api_key`) requires `auth.token`, presented the way the provider's SDKs
 * send their API key — `authorization: Bearer <token>` (OpenAI clients, Anthropic `authToken`)
 * or `x-api-key: <token>` (Anthropic `apiKey`). Without it the gateway key would be spent on
 * anyone's behalf. The token never goes upstream: the gateway key replaces every client
 * credential. A route without a gateway key forwards the client's own credentials and stays
 * open; with a gateway key and no token configured (start-up refuses that) every request is
 * refused.
 */
export function proxyAuth(
  token: string | undefined,
  gatewayKey: string | undefined,
): MiddlewareHandler {
  if (gatewayKey === undefined) return (_context, next) => next();
  const matches = token === undefined ? () => false : tokenMatcher(token);
  return async (context, next) => {
    if (matches(bearerToken(context)) || matches(context.req.header("x-api-key"))) {
      await next();
      return;
    }
    return unauthorized(context);
  };
}
