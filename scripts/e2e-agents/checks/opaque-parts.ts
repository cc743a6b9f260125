import { isRecord, type RequestView } from "../conversation.js";

/**
 * The parts of a request a proxy must pass as they are, listed with where they sit: thinking
 * blocks (their text and signature), reasoning and compaction items' `encrypted_content`,
 * custom tool calls' input (Codex's `apply_patch` patches) and every `cache_control` breakpoint.
 * A request forwarded faithfully lists the same parts as the client's.
 */

export interface OpaqueParts {
  readonly signatures: readonly string[];
  readonly encrypted: readonly string[];
  readonly patches: readonly string[];
  readonly breakpoints: readonly string[];
}

function walk(value: unknown, path: string, parts: { [K in keyof OpaqueParts]: string[] }): void {
  if (Array.isArray(value)) {
    for (const [index, element] of value.entries()) walk(element, `${path}/${index}`, parts);
    return;
  }
  if (!isRecord(value)) return;
  if (value.type === "thinking" && typeof value.signature === "string") {
    parts.signatures.push(`${path} ${JSON.stringify(value.thinking)} ${value.signature}`);
  }
  if (typeof value.encrypted_content === "string") {
    parts.encrypted.push(`${path} ${value.encrypted_content}`);
  }
  if (value.type === "custom_tool_call" && typeof value.input === "string") {
    parts.patches.push(`${path} ${value.input}`);
  }
  for (const [key, member] of Object.entries(value)) {
    if (key === "cache_control") parts.breakpoints.push(`${path} ${JSON.stringify(member)}`);
    else walk(member, `${path}/${key}`, parts);
  }
}

export function opaqueParts(view: RequestView): OpaqueParts {
  const parts = { signatures: [], encrypted: [], patches: [], breakpoints: [] };
  walk(view.body.system, "system", parts);
  walk(view.body.tools, "tools", parts);
  walk(view.body.messages ?? view.body.input, "conversation", parts);
  return parts;
}

/** The parts of the client's request that did not reach the model as they were sent. */
export function alteredParts(client: RequestView, forwarded: RequestView): string[] {
  const sent = opaqueParts(client);
  const received = opaqueParts(forwarded);
  const altered: string[] = [];
  for (const key of ["signatures", "encrypted", "patches", "breakpoints"] as const) {
    const arrived = new Set(received[key]);
    for (const part of sent[key])
      if (!arrived.has(part)) altered.push(`${key}: ${part.slice(0, 80)}`);
    if (received[key].length !== sent[key].length) {
      altered.push(`${key}: ${sent[key].length} sent, ${received[key].length} forwarded`);
    }
  }
  return altered;
}
