import { isRecord } from "../../is-record.js";
import type { SessionTexts } from "../../shape.js";
import { isMessage, itemText } from "./items.js";

/**
 * A Responses body's session texts (§7): `instructions` (else the first system or developer
 * message item) and the first user message item — the same for every turn sent with the whole
 * history.
 */
export function responsesSessionTexts(body: Record<string, unknown>): SessionTexts {
  let system = typeof body.instructions === "string" ? body.instructions : undefined;
  let user: string | undefined;
  for (const item of Array.isArray(body.input) ? body.input : []) {
    if (!isRecord(item) || !isMessage(item)) continue;
    if (system === undefined && (item.role === "system" || item.role === "developer")) {
      system = itemText(item);
    }
    if (user === undefined && item.role === "user") user = itemText(item);
    if (system !== undefined && user !== undefined) break;
  }
  return { system: system ?? "", user: user ?? "" };
}
