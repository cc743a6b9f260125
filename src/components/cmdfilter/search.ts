import { type Argv, type CommandFilter, isErrorLine, type LinePlan } from "./filter.js";
import { gitSubcommand } from "./git.js";

/**
 * Searches: `grep` (`egrep`, `fgrep`, `git grep`), `rg`, `ag`, `ack`, and `find`, `fd`.
 *
 * - Matches (`path:12:text`, `path:text`, `12:text` for a single file; context lines
 *   `path-12-text` and `--` separators follow their match): each file keeps its first
 *   `MAX_MATCHES_PER_FILE` matches with their context; the rest of that file's lines are dropped
 *   and the line after its last one says `… (N more matches in PATH)` (`… (N more matches)` for
 *   a single-file search).
 * - Paths (`find`, `fd`): each directory keeps its first `MAX_ENTRIES_PER_DIRECTORY` entries and
 *   says `… (N more entries in DIR/)`.
 * Lines that match none of these shapes always stay.
 */

export const MAX_MATCHES_PER_FILE = 20;
export const MAX_ENTRIES_PER_DIRECTORY = 20;

const SEARCHERS = new Set(["grep", "egrep", "fgrep", "rg", "ag", "ack"]);
const FINDERS = new Set(["find", "fd", "fdfind"]);

type Shape = { readonly key: string; readonly kind: "match" | "context" };

/** The file a grep-like line belongs to and whether it is a match or context. */
function matchShape(line: string, known: ReadonlySet<string>): Shape | undefined {
  if (/^\d+:/.test(line)) return { key: "", kind: "match" };
  if (/^\d+-/.test(line)) return { key: "", kind: "context" };
  const numbered = /^(.+?):\d+:/.exec(line);
  if (numbered) return { key: numbered[1] as string, kind: "match" };
  const context = /^(.+?)-\d+-/.exec(line);
  if (context && known.has(context[1] as string))
    return { key: context[1] as string, kind: "context" };
  const plain = /^([^\s:][^:]*):/.exec(line);
  if (plain && /[/.]/.test(plain[1] as string)) return { key: plain[1] as string, kind: "match" };
  return undefined;
}

function pathShape(line: string): Shape | undefined {
  if (line.trim() === "" || /\s{2,}|:\s/.test(line)) return undefined;
  const slash = line.lastIndexOf("/", line.length - 2);
  return slash < 0 ? undefined : { key: line.slice(0, slash + 1), kind: "match" };
}

function planCaps(lines: readonly string[], paths: boolean): LinePlan {
  const cap = paths ? MAX_ENTRIES_PER_DIRECTORY : MAX_MATCHES_PER_FILE;
  const shown = new Map<string, number>();
  const hidden = new Map<string, number>();
  const lastLine = new Map<string, number>();
  const known = new Set<string>();
  const drop = new Set<number>();
  let current: string | undefined;
  for (const [index, line] of lines.entries()) {
    const shape = paths ? pathShape(line) : matchShape(line, known);
    const key = shape?.key ?? (line === "--" ? current : undefined);
    if (key === undefined) {
      current = undefined;
      continue;
    }
    current = key;
    known.add(key);
    lastLine.set(key, index);
    if (shape?.kind === "match" && !isErrorLine(line)) {
      if ((shown.get(key) ?? 0) < cap) shown.set(key, (shown.get(key) ?? 0) + 1);
      else hidden.set(key, (hidden.get(key) ?? 0) + 1);
    }
    if ((hidden.get(key) ?? 0) > 0) drop.add(index);
  }
  const notes = new Map<number, string>();
  for (const [key, count] of hidden) {
    const where = key === "" ? "" : ` in ${key}`;
    const what = paths ? "entries" : "matches";
    notes.set(lastLine.get(key) as number, `… (${count} more ${what}${where})`);
  }
  return { drop, notes };
}

function isFinder(argv: Argv): boolean {
  return FINDERS.has(argv[0] ?? "");
}

export const search: CommandFilter = {
  name: "search",
  matches: (argv) =>
    SEARCHERS.has(argv[0] ?? "") || isFinder(argv) || gitSubcommand(argv) === "grep",
  plan: (lines, argv) => planCaps(lines, isFinder(argv)),
};
