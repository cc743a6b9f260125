import type { Span } from "../wire/types.js";
import { rawMarkerIds } from "./markers.js";

/**
 * The members whose text the model reads as conversation (Responses bodies: `instructions` and
 * `input`); `tools` is never searched (§8.1).
 */
const SEARCHED = ["system", "messages", "instructions", "input"] as const;

/**
 * Marker ids carried by a request's `system` and `messages` values (`instructions` and `input`),
 * searched in the raw text (escaped markers included), in order of first appearance.
 */
export function requestMarkerIds(text: string, members: ReadonlyMap<string, Span>): Set<string> {
  const ids = new Set<string>();
  for (const name of SEARCHED) {
    const span = members.get(name);
    if (span === undefined) continue;
    for (const id of rawMarkerIds(text.slice(span.start, span.end))) ids.add(id);
  }
  return ids;
}
