import type { ComponentName, Config } from "./schema.js";

/**
 * Tools whose outputs are never compacted by default (`exclude_tools`), because each is the
 * agent's own working state or already someone's conclusion, and reducing it loses what the
 * agent cannot get again:
 * - `context_guru_expand`: an original the model asked back for;
 * - `Task`, `Agent`, `dispatch_agent`: a sub-agent's report, the result of work done elsewhere;
 * - `TodoWrite`, `TodoRead`, `todo_write`, `update_plan`: the agent's task list or plan;
 * - `AskUserQuestion`: the user's own answer.
 */
export const DEFAULT_EXCLUDED_TOOLS: readonly string[] = [
  "context_guru_expand",
  "Task",
  "Agent",
  "dispatch_agent",
  "TodoWrite",
  "TodoRead",
  "todo_write",
  "update_plan",
  "AskUserQuestion",
];

/**
 * True when outputs of `toolName` must be left as they are by component `component`: the name
 * is in the global `exclude_tools` or in `components.<component>.exclude_tools` (compared without
 * regard to case). An output with no known call is never excluded.
 */
export function isExcluded(
  toolName: string | undefined,
  config: Pick<Config, "exclude_tools" | "components">,
  component: ComponentName,
): boolean {
  if (toolName === undefined) return false;
  return excludedBy(config, component).has(toolName.toLowerCase());
}

/** The lower-cased names each component leaves alone, by config (asked for every output). */
const excluded = new WeakMap<object, Map<ComponentName, ReadonlySet<string>>>();

function excludedBy(
  config: Pick<Config, "exclude_tools" | "components">,
  component: ComponentName,
): ReadonlySet<string> {
  let byComponent = excluded.get(config);
  if (byComponent === undefined) {
    byComponent = new Map();
    excluded.set(config, byComponent);
  }
  let names = byComponent.get(component);
  if (names === undefined) {
    const listed = [...config.exclude_tools, ...config.components[component].exclude_tools];
    names = new Set(listed.map((name) => name.toLowerCase()));
    byComponent.set(component, names);
  }
  return names;
}
