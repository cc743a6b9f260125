import type { OutputComponent } from "../pipeline/types.js";

/**
 * Reformat: search results with their repeated path prefixes folded out, losslessly.
 *
 * Consecutive grep-style lines of one file (`path:12:text` matches, `path-13-text` context lines
 * and the `--` separators between them) become the path once, then one indented line each:
 *
 *     src/app.py:12:import os          src/app.py:
 *     src/app.py-13-import sys   →       12:import os
 *     --                                 13-import sys
 *     src/app.py:40:os.exit(1)           --
 *                                        40:os.exit(1)
 *
 * and consecutive listing entries of one directory (`find`, `fd`, `ls -R`) become the directory
 * once, then one indented name each (`./src/` then `  a.ts`, `  b.ts`). Any other line stays as
 * it is. Only outputs classed as search results (src/content/) are folded, and a fold is adopted
 * only when `unfoldSearch` gives back the received text byte for byte and it has fewer tokens.
 */
export const searchfold = {
  name: "searchfold",
  kind: "reformat",
  scope: "output",
  reachesBack: false,
  bounds: false,
  readsLines: true,
  reduce(output, options, context) {
    if (output.contentClass !== "search") return undefined;
    if (!context.atLeastTokens(output.text, options.min_tokens)) return undefined;
    const folded = foldSearch(output.text);
    if (folded === undefined) return undefined;
    return context.tokens(folded) < context.tokens(output.text) ? folded : undefined;
  },
} satisfies OutputComponent<"searchfold">;

const INDENT = "  ";
const MATCH = /^(.+?):(\d+:.*)$/s;
const ENTRY = /^ {2}(?:\d+[:-]|--$)/;
const NAME = /^ {2}[^\s/][^/]*$/;

/** One line's place in a fold: its group key (a path or a directory) and what is left of it. */
interface Folded {
  readonly key: string;
  readonly rest: string;
}

/** `text` with its repeated path prefixes folded out; undefined when nothing folds losslessly. */
export function foldSearch(text: string): string | undefined {
  const lines = text.split("\n");
  const out: string[] = [];
  let changed = false;
  let at = 0;
  while (at < lines.length) {
    const group = groupAt(lines, at);
    if (group.length < 2) {
      out.push(lines[at++] as string);
      continue;
    }
    const key = (group[0] as Folded).key;
    out.push(key.endsWith("/") ? key : `${key}:`);
    for (const item of group) out.push(INDENT + item.rest);
    at += group.length;
    changed = true;
  }
  if (!changed) return undefined;
  const folded = out.join("\n");
  return unfoldSearch(folded) === text ? folded : undefined;
}

/** The lines from `at` on that fold under one key: matches of one file, or entries of one directory. */
function groupAt(lines: readonly string[], at: number): Folded[] {
  const first = lines[at] as string;
  const match = MATCH.exec(first);
  if (match) return matchGroup(lines, at, match[1] as string);
  const slash = first.lastIndexOf("/");
  if (slash < 0 || slash === first.length - 1 || /\s{2}|^\s/.test(first)) return [];
  const directory = first.slice(0, slash + 1);
  const group: Folded[] = [];
  for (let index = at; index < lines.length; index++) {
    const line = lines[index] as string;
    const name = line.slice(directory.length);
    if (!line.startsWith(directory) || name === "" || name.includes("/")) break;
    group.push({ key: directory, rest: name });
  }
  return group;
}

function matchGroup(lines: readonly string[], at: number, path: string): Folded[] {
  const group: Folded[] = [];
  let end = at;
  for (let index = at; index < lines.length; index++) {
    const line = lines[index] as string;
    const rest = line === "--" ? line : entryOf(line, path);
    if (rest === undefined) break;
    group.push({ key: path, rest });
    if (rest !== "--") end = group.length;
  }
  // A separator after the file's last line belongs between files, outside the group.
  return group.slice(0, end);
}

/** `12:text` of `path:12:text`, `13-text` of `path-13-text`; undefined for other lines. */
function entryOf(line: string, path: string): string | undefined {
  if (!line.startsWith(path)) return undefined;
  const separator = line[path.length];
  const rest = line.slice(path.length + 1);
  if (separator === ":" && /^\d+:/.test(rest)) return rest;
  if (separator === "-" && /^\d+-/.test(rest)) return rest;
  return undefined;
}

/** The search results `foldSearch` folded, restored exactly. */
export function unfoldSearch(folded: string): string {
  const lines = folded.split("\n");
  const out: string[] = [];
  let at = 0;
  while (at < lines.length) {
    const line = lines[at] as string;
    const next = lines[at + 1];
    if (line.length > 1 && line.endsWith(":") && next !== undefined && ENTRY.test(next)) {
      const path = line.slice(0, -1);
      for (at++; at < lines.length && ENTRY.test(lines[at] as string); at++) {
        const entry = (lines[at] as string).slice(INDENT.length);
        // `12:text` was `path:12:text`, `13-text` was `path-13-text`.
        const separator = entry[/^\d*/.exec(entry)?.[0].length ?? 0];
        out.push(entry === "--" ? entry : `${path}${separator}${entry}`);
      }
      continue;
    }
    if (line.length > 1 && line.endsWith("/") && next !== undefined && NAME.test(next)) {
      for (at++; at < lines.length && NAME.test(lines[at] as string); at++) {
        out.push(line + (lines[at] as string).slice(INDENT.length));
      }
      continue;
    }
    out.push(line);
    at++;
  }
  return out.join("\n");
}
