import { createHash } from "node:crypto";

/**
 * Conversation ids (§4a): message k's id is a hash of message k−1's id and message k's bytes, so
 * two requests share an id exactly as far as their messages are identical — as a provider's
 * prefix cache does. A message's bytes are its JSON as sent, except that `cache_control` members
 * are left out: clients move their cache breakpoints from turn to turn (Anthropic), and a moved
 * breakpoint changes nothing the model reads.
 */
export function chainIds(
  raws: readonly string[],
  messageValue: (index: number) => unknown,
): string[] {
  const ids: string[] = [];
  let previous = "";
  for (const [index, raw] of raws.entries()) {
    const bytes = raw.includes('"cache_control"')
      ? JSON.stringify(withoutCacheControl(messageValue(index)))
      : raw;
    previous = createHash("sha256")
      .update(previous)
      .update("\u0000")
      .update(bytes)
      .digest("hex")
      .slice(0, 32);
    ids.push(previous);
  }
  return ids;
}

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (typeof value !== "object" || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) {
    if (key !== "cache_control") copy[key] = withoutCacheControl(member);
  }
  return copy;
}
