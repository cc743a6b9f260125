import type { ModelConfig } from "../config/schema.js";
import type { IncomingRequest } from "../pipeline/types.js";
import type { Upstream as Provider } from "../wire/types.js";
import { credentialHeaders } from "./credential-headers.js";

/** Where and how one model is called: everything a request needs, resolved from configuration. */
export interface Endpoint {
  readonly provider: Provider;
  readonly url: string;
  readonly model: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Identifies the endpoint for its concurrency cap; holds no credentials. */
  readonly key: string;
}

/** Each provider's path below its base URL, following the official SDKs. */
const PATHS: Readonly<Record<Provider, string>> = {
  openai: "/chat/completions",
  anthropic: "/v1/messages",
};
const ANTHROPIC_VERSION = "2023-06-01";

export type EndpointResolution =
  | { readonly endpoint: Endpoint }
  | { readonly missing: string; readonly endpoint?: undefined };

/**
 * Resolves `components.<name>.model`. `configured`: base_url and model are required, the key is
 * optional (a local endpoint may need none) but an `api_key_env` that names an unset variable
 * counts as missing. `incoming`: the request's provider, model and credentials, at the
 * configured base_url or else the provider's upstream; `model` in the config picks a cheaper
 * model under the same credentials.
 */
export function resolveEndpoint(
  config: ModelConfig,
  incoming: IncomingRequest | undefined,
  env: Readonly<Record<string, string | undefined>>,
): EndpointResolution {
  if (config.source === "incoming") return incomingEndpoint(config, incoming);
  if (config.base_url === undefined) return { missing: "base_url" };
  if (config.model === undefined) return { missing: "model" };
  let apiKey = config.api_key;
  if (apiKey === undefined && config.api_key_env !== undefined) {
    apiKey = env[config.api_key_env];
    if (apiKey === undefined || apiKey === "") {
      return { missing: `api key (environment variable ${config.api_key_env} is unset)` };
    }
  }
  const headers: Record<string, string> = { ...baseHeaders(config.provider) };
  if (apiKey !== undefined) {
    const style = config.auth_style ?? (config.provider === "anthropic" ? "x-api-key" : "bearer");
    if (style === "bearer") headers.authorization = `Bearer ${apiKey}`;
    else headers["x-api-key"] = apiKey;
  }
  return { endpoint: endpoint(config.provider, config.base_url, config.model, headers) };
}

function incomingEndpoint(
  config: ModelConfig,
  incoming: IncomingRequest | undefined,
): EndpointResolution {
  if (!incoming) return { missing: "incoming request" };
  const baseUrl = config.base_url ?? incoming.baseUrl;
  if (baseUrl === undefined) return { missing: "base_url" };
  const model = config.model ?? incoming.model;
  if (model === undefined || model === "") return { missing: "incoming model" };
  const headers: Record<string, string> = { ...baseHeaders(incoming.provider) };
  let credentials = 0;
  for (const [name, value] of Object.entries(credentialHeaders(new Headers(incoming.headers)))) {
    headers[name] = value;
    if (name !== "anthropic-version") credentials++;
  }
  if (credentials === 0) return { missing: "incoming credentials" };
  return { endpoint: endpoint(incoming.provider, baseUrl, model, headers) };
}

function baseHeaders(provider: Provider): Record<string, string> {
  return provider === "anthropic"
    ? { "content-type": "application/json", "anthropic-version": ANTHROPIC_VERSION }
    : { "content-type": "application/json" };
}

function endpoint(
  provider: Provider,
  baseUrl: string,
  model: string,
  headers: Record<string, string>,
): Endpoint {
  const url = `${baseUrl.replace(/\/+$/, "")}${PATHS[provider]}`;
  return { provider, url, model, headers, key: `${provider} ${url} ${model}` };
}
