import type { ComponentName, MarkerMode } from "../config/schema.js";
import type { ComponentReport, RunReport } from "./report.js";
import type { RunRequest } from "./run.js";
import type { Component } from "./types.js";

/**
 * The run report's component entries (§4): one per pipeline position. A replayed component's
 * entry is taken over by its first position, so a replay and a new decision of one component
 * are reported together.
 */
export class ReportEntries {
  readonly report: RunReport = { components: [] };
  readonly #replayed = new Map<ComponentName, ComponentReport>();

  constructor(private readonly request: RunRequest) {}

  /** The entry of component `name` for a replay of it, or for its next pipeline position. */
  entryFor(
    name: ComponentName,
    kind: Component["kind"] | undefined,
    replaying: boolean,
  ): ComponentReport {
    const replayed = this.#replayed.get(name);
    if (replayed && replaying) return replayed;
    if (replayed) {
      this.#replayed.delete(name);
      return replayed;
    }
    const entry = newEntry(name, kind ?? "reformat", modeOf(this.request, name));
    this.report.components.push(entry);
    if (replaying) this.#replayed.set(name, entry);
    return entry;
  }
}

/** Full mode acts as off without a store that keeps originals, or a model that can expand. */
export function effectiveMode(mode: MarkerMode, expandable: boolean): MarkerMode {
  return mode === "full" && !expandable ? "off" : mode;
}

/** The effective marker mode of component `name` on this request. */
/** The mode component `name` writes its markers in for `request`. */
export function modeOf(request: RunRequest, name: ComponentName): MarkerMode {
  if (request.oneWay?.all) return "summary";
  const mode = request.config.components[name].marker_mode ?? request.config.marker_mode;
  return effectiveMode(mode, request.persists && request.expandable);
}

/** A component's report entry before it has run: nothing changed, counted or timed. */
export function newEntry(
  name: ComponentName,
  kind: Component["kind"],
  mode: MarkerMode,
): ComponentReport {
  return {
    name,
    kind,
    mode,
    tokensBefore: 0,
    tokensAfter: 0,
    durationMs: 0,
    changed: 0,
    dropped: 0,
    keys: [],
  };
}
