import { commandsOf } from "./command.js";
import { containers } from "./containers.js";
import type { Argv, CommandFilter } from "./filter.js";
import { gitLog, gitStatus } from "./git.js";
import { install } from "./install.js";
import { jest } from "./jest.js";
import { pytest } from "./pytest.js";

/** The built-in command filters, tried in this order (search results and diffs: fact-collapse.ts). */
export const filters: readonly CommandFilter[] = [
  pytest,
  jest,
  install,
  gitLog,
  gitStatus,
  containers,
];

export interface Selection {
  readonly filter: CommandFilter;
  /** The first command the filter was chosen for. */
  readonly argv: Argv;
}

/**
 * The filter for a shell command: every command whose output lands in the tool output must be
 * one the same filter understands (`cd x && pytest -q | tail` → pytest); a mix of families or an
 * unknown command selects nothing.
 */
export function filterFor(command: string): Selection | undefined {
  const commands = commandsOf(command);
  let selected: CommandFilter | undefined;
  for (const argv of commands) {
    const filter = filters.find((candidate) => candidate.matches(argv));
    if (!filter || (selected && filter !== selected)) return undefined;
    selected = filter;
  }
  const argv = commands[0];
  return selected && argv ? { filter: selected, argv } : undefined;
}
