import { createHash } from "node:crypto";
import { isRecord } from "../wire/is-record.js";
import { detectShape } from "../wire/registry.js";

/** An explicit id used as it is (§7). */
const USABLE = /^[A-Za-z0-9._:-]{1,128}$/;
/** The namespace of explicit ids that are not usable as they are. */
const HASHED_PREFIX = "sha256:";

/**
 * The key an explicit session id stands for (§7): a usable id as it is; any other non-empty
 * string `sha256:` + the first 32 hex of its SHA-256, so `alice@example.com` and
 * `bob@example.com` never share a session and never fall back to the derived key. The mapped
 * key is itself usable, so a client that sends it back lands in the same session. Undefined when
 * there is no id (absent, empty, or not a string).
 */
export function explicitSessionKey(id: unknown): string | undefined {
  if (typeof id !== "string" || id === "") return undefined;
  if (USABLE.test(id)) return id;
  return `${HASHED_PREFIX}${sha256Hex(id).slice(0, 32)}`;
}

/**
 * §7: an explicit id (header, else body `metadata.user_id`) through explicitSessionKey, else the
 * first 16 hex of SHA-256(first system text + NUL + first user text) — stable across the turns
 * of a conversation. The texts are those of the shape the body is sniffed as (§2): a Responses
 * body's system text is its `instructions`.
 */
export function sessionKey(body: unknown, explicit?: string): string {
  const fromHeader = explicitSessionKey(explicit);
  if (fromHeader !== undefined) return fromHeader;
  if (!isRecord(body)) return derive("", "");
  const fromBody = isRecord(body.metadata) ? explicitSessionKey(body.metadata.user_id) : undefined;
  if (fromBody !== undefined) return fromBody;
  const { system, user } = detectShape(body).sessionTexts(body);
  return derive(system, user);
}

/**
 * Whether a request names the conversation it belongs to: an explicit session id (the header,
 * or `metadata.user_id`: an agent's own session), or the cache key it asks the provider to
 * route by (`prompt_cache_key`, part of its chain's root: session/root.ts). Only then can a
 * request whose messages part from what the ledger holds be told from another conversation that
 * shares a derived key and its first messages: the one diverged from its own conversation (§4a
 * "Live sessions"), the other never changes a conversation it is not (§7).
 */
export function namesConversation(body: unknown, explicit?: string): boolean {
  if (explicitSessionKey(explicit) !== undefined) return true;
  if (!isRecord(body)) return false;
  if (isRecord(body.metadata) && explicitSessionKey(body.metadata.user_id) !== undefined) {
    return true;
  }
  return typeof body.prompt_cache_key === "string" && body.prompt_cache_key !== "";
}

function derive(system: string, user: string): string {
  return sha256Hex(`${system}\0${user}`).slice(0, 16);
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
