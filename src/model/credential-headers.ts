/** Headers of an incoming request that `source: incoming` may reuse to call the same provider. */
const CREDENTIAL_HEADERS = ["authorization", "x-api-key", "api-key", "anthropic-version"] as const;

/** The credential headers present on `headers` (lower-case names); nothing else is kept. */
export function credentialHeaders(headers: Headers): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of CREDENTIAL_HEADERS) {
    const value = headers.get(name);
    if (value !== null && value !== "") picked[name] = value;
  }
  return picked;
}
