import { type ComponentName, type Config, componentNames } from "./schema.js";

/** Settings that are each valid but contradict each other; logged once at start. */
export interface ConfigWarning {
  /** The keys involved, as the configuration table names them. */
  readonly keys: readonly string[];
  readonly message: string;
}

/** The components whose own `marker_mode` is `full`, whatever the global mode. */
function fullOverrides(config: Config): ComponentName[] {
  return componentNames.filter((name) => config.components[name].marker_mode === "full");
}

/**
 * Contradictions a start-up should point out: a store that nothing will ever write to (no
 * offloader stashes unless its marker mode is `full`), `full` markers that have no store to
 * stash in (they degrade to `off`: the body carries no marker), and an expand tool that is
 * never injected without a store.
 */
export function configWarnings(config: Config): ConfigWarning[] {
  const warnings: ConfigWarning[] = [];
  const overrides = fullOverrides(config);
  const fullSomewhere = config.marker_mode === "full" || overrides.length > 0;
  if (config.store.enabled && !fullSomewhere) {
    warnings.push({
      keys: ["store.enabled", "marker_mode"],
      message: `store.enabled is true but marker_mode is ${config.marker_mode}: nothing is ever stashed, so the store stays empty; set store.enabled: false for clean mode, or marker_mode: full to keep originals`,
    });
  }
  if (!config.store.enabled && fullSomewhere) {
    const where =
      config.marker_mode === "full"
        ? "marker_mode is full"
        : `components.{${overrides.join(",")}}.marker_mode is full`;
    warnings.push({
      keys: ["store.enabled", "marker_mode"],
      message: `${where} but store.enabled is false: full markers degrade to off (nothing is stashed and no marker is written); set marker_mode: off, or enable the store`,
    });
  }
  if (!config.store.enabled && config.inject_expand === "always") {
    warnings.push({
      keys: ["store.enabled", "inject_expand"],
      message:
        "inject_expand is always but store.enabled is false: the expand tool is never injected without a store",
    });
  }
  return warnings;
}
