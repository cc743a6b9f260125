import { commandOf } from "../components/cmdfilter/command.js";
import { SENTINEL } from "../expand/markers.js";
import { codeAt } from "../text/char-code.js";
import type { ToolCall, ToolOutput } from "../wire/types.js";
import { isReadTool } from "./class-by-call.js";
import { askedLines, readPath } from "./target.js";

/**
 * A short description of what a tool output was, for a placeholder that hides it (mask), so the
 * model can tell whether it needs the output back:
 * - a file read: the tool, the path and the line range its call asked for
 *   (`Read /src/app.py lines 557-776`, from `offset`/`limit`, `view_range`, or
 *   `start_line`/`end_line`);
 * - a shell command: the command (`$ grep -rn alias_map django`);
 * - anything else: the output's first non-blank line.
 * Whitespace runs become one space; the result is at most `PEEK_CHARS` characters (cut with `…`,
 * never inside a surrogate pair), holds no marker syntax, and only the first `SCAN_CHARS` of the
 * output are read.
 */
export const PEEK_CHARS = 80;
const SCAN_CHARS = 4096;

export function peekOf(output: ToolOutput): string {
  return bounded(describe(output));
}

function describe({ call, text }: ToolOutput): string {
  if (call && isReadTool(call.name)) return readOf(call);
  const command = commandOf(call);
  if (command !== undefined) return `$ ${command}`;
  const start = text.slice(0, SCAN_CHARS);
  return start.split("\n").find((line) => line.trim() !== "") ?? "";
}

function readOf(call: ToolCall): string {
  const input = isRecord(call.input) ? call.input : {};
  const lines = askedLines(input);
  const range =
    lines === undefined
      ? undefined
      : lines.last === Infinity
        ? `from line ${lines.first}`
        : `lines ${lines.first}-${lines.last}`;
  return [call.name, readPath(input), range].filter((part) => part !== undefined).join(" ");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function bounded(description: string): string {
  const flat = description
    .slice(0, SCAN_CHARS)
    .replace(/\s+/g, " ")
    .trim()
    .replaceAll("<<cg:", "<< cg:")
    .replaceAll(SENTINEL, "\u27ea cg\u27eb");
  if (flat.length <= PEEK_CHARS) return flat;
  let cut = flat.slice(0, PEEK_CHARS - 1);
  const last = codeAt(cut, cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut.trimEnd()}\u2026`;
}
