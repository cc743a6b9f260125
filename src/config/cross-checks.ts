import { ConfigError } from "../errors/config-error.js";
import type { Config } from "./schema.js";

/**
 * Rules that tie one key to another, checked once at boot after the schema: each throws a
 * ConfigError naming the key to fix.
 */
export function checkCrossKeys(config: Config): void {
  const gatewayKeys = (["openai", "anthropic"] as const)
    .filter((provider) => config.upstream[provider].api_key !== undefined)
    .map((provider) => `upstream.${provider}.api_key`);
  if (gatewayKeys.length > 0 && config.auth.token === undefined) {
    throw new ConfigError(
      "auth.token",
      `required when ${gatewayKeys.join(" and ")} ${gatewayKeys.length > 1 ? "are" : "is"} set: without it the proxy routes would spend the gateway key for any caller`,
    );
  }
  const { max_session_bytes: session, max_bytes: total } = config.store;
  if (session !== undefined && session > total) {
    throw new ConfigError(
      "store.max_session_bytes",
      `${session} is more than store.max_bytes (${total}): one session cannot hold more than the store`,
    );
  }
}
