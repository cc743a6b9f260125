import type { Config } from "../config/schema.js";
import { isRecord } from "../wire/is-record.js";
import type { WireShape } from "../wire/shape.js";
import type { Span } from "../wire/types.js";
import { declaredToolName, EXPAND_TOOL_NAME } from "./tool.js";

export type InjectMode = Config["inject_expand"];

/** Why the model of a request cannot call the expand tool, so full markers act as off (§8.1). */
export type NoExpandReason =
  | "no_store"
  | "inject_never"
  | "tool_choice"
  | "no_tools"
  | "tool_absent";

export type ExpandAbility =
  | { readonly able: true /** The request declares the tool itself. */; readonly declared: boolean }
  | { readonly able: false; readonly reason: NoExpandReason };

/**
 * Whether the model of a request could call the expand tool were it there (§8.1): not without a
 * store that keeps originals, with injection `never`, with a `tool_choice` forcing another
 * choice, or — in `auto` mode — without tools of its own. A request that declares the tool
 * itself (a client that keeps compacted bodies) can always call it.
 */
export function expandAbility(
  mode: InjectMode,
  persists: boolean,
  tools: unknown,
  toolChoice: unknown,
): ExpandAbility {
  if (!persists) return { able: false, reason: "no_store" };
  if (mode === "never") return { able: false, reason: "inject_never" };
  if (forcesToolChoice(toolChoice)) return { able: false, reason: "tool_choice" };
  if (Array.isArray(tools)) {
    if (tools.some((tool) => declaredToolName(tool) === EXPAND_TOOL_NAME)) {
      return { able: true, declared: true };
    }
    if (tools.length > 0 || mode === "always") return { able: true, declared: false };
  } else if (tools === undefined && mode === "always") {
    return { able: true, declared: false };
  }
  return { able: false, reason: "no_tools" };
}

/** Anything but absent (or null), `"auto"` or `{"type":"auto"}` forces a choice the tool must not disturb. */
export function forcesToolChoice(choice: unknown): boolean {
  if (choice === undefined || choice === null || choice === "auto") return false;
  return !(isRecord(choice) && choice.type === "auto");
}

/**
 * Adds the expand tool (the shape's entry) as the last entry of `tools` (§8.1), or as a `tools`
 * member before the closing brace when there is none, editing the raw request text so every
 * other byte stays as it was. `members` and `close` locate the body's root members; the caller
 * decides whether the tool belongs (expandAbility, and the cache policy: only on a session's
 * first or a cold request).
 */
export function injectExpandTool(
  text: string,
  shape: Pick<WireShape, "expandTool">,
  members: ReadonlyMap<string, Span>,
  close: number,
): string {
  const entry = shape.expandTool;
  const toolsSpan = members.get("tools");
  if (toolsSpan === undefined) {
    const separator = members.size > 0 ? "," : "";
    return `${text.slice(0, close)}${separator}"tools":[${entry}]${text.slice(close)}`;
  }
  const inside = text.slice(toolsSpan.start + 1, toolsSpan.end - 1);
  const separator = inside.trim() === "" ? "" : ",";
  const bracket = toolsSpan.end - 1;
  return `${text.slice(0, bracket)}${separator}${entry}${text.slice(bracket)}`;
}
