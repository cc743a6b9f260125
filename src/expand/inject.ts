import type { Config } from "../config/schema.js";
import { isRecord } from "../wire/detect.js";
import { scanTopLevel } from "../wire/json-scan.js";
import type { Provider, Span } from "../wire/types.js";
import { requestMarkerIds } from "./request-markers.js";
import { declaredToolName, EXPAND_TOOL_NAME, expandToolJson } from "./tool.js";

export type InjectMode = Config["inject_expand"];

export interface InjectOptions {
  readonly provider: Provider;
  readonly mode: InjectMode;
  /** Whether the store keeps originals; without it a marker cannot be resolved (§1). */
  readonly persists: boolean;
  /**
   * What the caller already knows of `text`, so a hot path does not scan or parse it again:
   * its root members' spans and closing brace, the parsed `tools` and `tool_choice`, and
   * whether its `system`/`messages` carry a marker (searched when undefined).
   */
  readonly known?: {
    readonly members: ReadonlyMap<string, Span>;
    readonly close: number;
    readonly tools: unknown;
    readonly toolChoice: unknown;
    readonly carriesMarker?: boolean | undefined;
  };
}

/**
 * Adds the expand tool as the last entry of `tools` (§8.1), editing the raw request text so
 * every other byte stays as it was. Returns the text unchanged when the tool does not belong:
 * mode `never`, no persisting store, a forced `tool_choice`, the tool already present, and in
 * `auto` mode a request without tools or without a marker in `system`/`messages`.
 */
export function injectExpandTool(text: string, options: InjectOptions): string {
  if (options.mode === "never" || !options.persists) return text;
  const { known } = options;
  let scan: { members: ReadonlyMap<string, Span>; close: number } | undefined = known;
  try {
    scan ??= scanTopLevel(text);
  } catch {
    return text;
  }
  if (scan === undefined) return text;
  const { members, close } = scan;
  const toolChoice = known ? known.toolChoice : valueAt(text, members.get("tool_choice"));
  if (forcesToolChoice(toolChoice)) return text;

  const toolsSpan = members.get("tools");
  const tools = known ? known.tools : valueAt(text, toolsSpan);
  const entry = expandToolJson(options.provider);
  if (toolsSpan === undefined) {
    if (options.mode !== "always") return text;
    const separator = members.size > 0 ? "," : "";
    return `${text.slice(0, close)}${separator}"tools":[${entry}]${text.slice(close)}`;
  }
  if (!Array.isArray(tools)) return text;
  if (tools.some((tool) => declaredToolName(tool) === EXPAND_TOOL_NAME)) return text;
  if (options.mode === "auto") {
    if (tools.length === 0) return text;
    const carries = known?.carriesMarker ?? requestMarkerIds(text, members).size > 0;
    if (!carries) return text;
  }
  const bracket = toolsSpan.end - 1;
  const separator = tools.length > 0 ? "," : "";
  return `${text.slice(0, bracket)}${separator}${entry}${text.slice(bracket)}`;
}

/** Anything but absent (or null), `"auto"` or `{"type":"auto"}` forces a choice the tool must not disturb. */
export function forcesToolChoice(choice: unknown): boolean {
  if (choice === undefined || choice === null || choice === "auto") return false;
  return !(isRecord(choice) && choice.type === "auto");
}

function valueAt(text: string, span: Span | undefined): unknown {
  if (span === undefined) return undefined;
  try {
    return JSON.parse(text.slice(span.start, span.end));
  } catch {
    return undefined;
  }
}
