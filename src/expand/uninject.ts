import { scanTopLevel } from "../wire/json-scan.js";
import type { WireShape } from "../wire/shape.js";

/**
 * Undoes injectExpandTool (§8.1) for /rehydrate: removes the expand tool where the injection put
 * it — the last entry of `tools`, or a `tools` member appended to the root — so that
 * rehydrate(compact(x)) = x byte for byte.
 */
export function removeExpandTool(text: string, shape: Pick<WireShape, "expandTool">): string {
  const scan = scanTopLevel(text);
  const span = scan?.members.get("tools");
  if (!scan || !span) return text;
  const entry = shape.expandTool;
  const tools = text.slice(span.start, span.end);
  if (tools.endsWith(`,${entry}]`)) {
    return text.slice(0, span.end - entry.length - 2) + text.slice(span.end - 1);
  }
  if (tools !== `[${entry}]`) return text;
  const appended = `,"tools":[${entry}]`;
  const memberStart = span.end - appended.length;
  if (span.end === scan.close && text.slice(memberStart, span.end) === appended) {
    return text.slice(0, memberStart) + text.slice(span.end);
  }
  if (span.end === scan.close && text.slice(span.start - 8, span.end) === `"tools":[${entry}]`) {
    return text.slice(0, span.start - 8) + text.slice(span.end);
  }
  return text.slice(0, span.start + 1) + text.slice(span.end - 1);
}
