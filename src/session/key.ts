import { createHash } from "node:crypto";
import { isRecord } from "../wire/detect.js";
import { contentText } from "../wire/transcript.js";

const USABLE = /^[A-Za-z0-9._:-]{1,128}$/;

/** True when `id` may be used as an explicit session key (§7). */
export function isUsableSessionId(id: unknown): id is string {
  return typeof id === "string" && USABLE.test(id);
}

/**
 * §7: a usable explicit id (header, else body `metadata.user_id`), else the first 16 hex of
 * SHA-256(first system text + NUL + first user text) — stable across the turns of a conversation.
 */
export function sessionKey(body: unknown, explicit?: string): string {
  if (isUsableSessionId(explicit)) return explicit;
  if (!isRecord(body)) return derive("", "");
  if (isRecord(body.metadata) && isUsableSessionId(body.metadata.user_id)) {
    return body.metadata.user_id;
  }
  let system = body.system === undefined ? undefined : contentText(body.system);
  let user: string | undefined;
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    if (!isRecord(message)) continue;
    if (system === undefined && (message.role === "system" || message.role === "developer")) {
      system = contentText(message.content);
    }
    if (user === undefined && message.role === "user") user = contentText(message.content);
    if (system !== undefined && user !== undefined) break;
  }
  return derive(system ?? "", user ?? "");
}

function derive(system: string, user: string): string {
  return createHash("sha256").update(`${system}\0${user}`, "utf8").digest("hex").slice(0, 16);
}
