import type { ToolOutput } from "../wire/types.js";
import { commandOf } from "./cmdfilter/command.js";

const READ_TOOLS =
  /^(?:read|read_?file|view|view_?file|open_?file|fs_?read|str_replace_(?:based_)?edit(?:or|_tool))$/i;
const PRINTERS = /^\s*(?:sudo\s+)?(?:cat|nl|head|tail|less|more|bat|sed\s+-n)\b/;
const NUMBERED_LINE = /^\s*\d+(?:\t|→|\s*\|)/;

/**
 * True when a tool output is the content of a file (a Read-style tool, or `cat`/`head`/`sed -n`
 * printing one). Line-level projections (`extract`, `linecap`) leave such outputs alone: in
 * source code a repeated line is meaning, not noise, and dropping one would silently change
 * what the model reads.
 */
export function isFileContent(output: ToolOutput): boolean {
  const { call } = output;
  if (call && READ_TOOLS.test(call.name)) return true;
  const command = commandOf(call);
  if (command !== undefined && PRINTERS.test(command) && !command.includes("|")) return true;
  if (command !== undefined) return false;
  return mostlyNumbered(output.text);
}

/** Most of the first lines look like `12\tcode` or `12 | code` (a numbered file listing). */
function mostlyNumbered(text: string): boolean {
  const lines = text.split("\n", 20).filter((line) => line.trim() !== "");
  if (lines.length < 3) return false;
  return lines.filter((line) => NUMBERED_LINE.test(line)).length >= lines.length * 0.8;
}
