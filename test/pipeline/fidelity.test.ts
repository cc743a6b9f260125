import { describe, expect, it } from "vitest";
import type { ContentClass } from "../../src/content/content-class.js";
import { EXPAND_HINT } from "../../src/expand/markers.js";
import { checkFidelity, type FidelityViolation } from "../../src/pipeline/fidelity.js";

const lines = (...items: string[]) => items.join("\n");
const marker = "<<cg:0123456789abcdef>>";
const diff = lines(
  "diff --git a/src/app.py b/src/app.py",
  "--- a/src/app.py",
  "+++ b/src/app.py",
  "@@ -1,4 +1,3 @@",
  " import os",
  "-",
  " def main():",
  "-    pass",
  "+    run()",
);
const read = lines(...Array.from({ length: 8 }, (_, i) => `${i + 1}\tline ${i + 1}`), "");
const log = lines("step 1", "[=====>    ] 50%", "step 2", "done");

describe("checkFidelity", () => {
  it.each<[string, string, string, ContentClass, readonly string[], FidelityViolation | undefined]>(
    [
      ["an unchanged output", diff, diff, "diff", [], undefined],
      ["an emptied output", log, "", "log", [], "empty"],
      ["a blank result", log, " \n", "log", [], "empty"],
      ["a lone marker", log, marker, "log", [marker], "notes_only"],
      ["a marker on its own line after nothing", log, `\n${marker}`, "log", [marker], "notes_only"],
      ["a note-only result", log, '… (4 "Setting up" lines)', "log", [], "notes_only"],
      [
        "notes and a marker",
        log,
        `… (2 lines)\n… (2 lines)\n${marker}`,
        "log",
        [marker],
        "notes_only",
      ],
      [
        "a thinned log",
        log,
        lines("step 1", "… (1 progress line)", "step 2", "done"),
        "log",
        [],
        undefined,
      ],
      [
        "a whole-output mask of a log",
        log,
        `[older tool output masked] ${marker}${EXPAND_HINT}`,
        "log",
        [marker],
        undefined,
      ],
      ["a diff with a marker appended", diff, `${diff}\n${marker}`, "diff", [marker], undefined],
      [
        "a diff whose deleted blank line was dropped",
        diff,
        lines(...diff.split("\n").filter((line) => line !== "-"), marker),
        "diff",
        [marker],
        "fact_thinned",
      ],
      [
        "a diff thinned with an in-place note",
        diff,
        lines(
          ...diff.split("\n").slice(0, 4),
          "… (2 lines)",
          ...diff.split("\n").slice(6, 7),
          "… (2 lines)",
        ),
        "diff",
        [],
        "fact_thinned",
      ],
      [
        "a diff whose long line was cut",
        diff,
        diff.replace(" def main():", " def ...[cut]...:"),
        "diff",
        [],
        "fact_thinned",
      ],
      [
        "a masked file read",
        read,
        "[older tool output masked: Read src/app.py lines 1-8]",
        "file",
        [],
        undefined,
      ],
      [
        "a masked file read in full mode",
        read,
        `[older tool output masked: Read src/app.py lines 1-8] ${marker}${EXPAND_HINT}`,
        "file",
        [marker],
        undefined,
      ],
      ["a dedup pointer", read, "[identical to an earlier tool output]", "file", [], undefined],
      [
        "a head/tail collapse with a marker on the note",
        read,
        lines(
          "1\tline 1",
          "2\tline 2",
          `… (4 lines omitted) ${marker}`,
          "7\tline 7",
          "8\tline 8",
          "",
        ),
        "file",
        [marker],
        undefined,
      ],
      [
        "a head/tail collapse with the marker on the last line",
        read,
        lines("1\tline 1", "… 6 more lines", "8\tline 8", marker),
        "file",
        [marker],
        undefined,
      ],
      [
        "a head/tail collapse whose note has no count",
        read,
        lines("1\tline 1", "… more lines", "8\tline 8"),
        "file",
        [],
        "fact_thinned",
      ],
      [
        "a collapse that leaves a line out silently",
        read,
        lines("1\tline 1", "… (5 lines omitted)", "8\tline 8"),
        "file",
        [],
        undefined,
      ],
      [
        "two gaps in a search result",
        lines("a.py:1:x", "a.py:2:y", "a.py:3:z", "a.py:4:w", "a.py:5:v"),
        lines("a.py:1:x", "… 1 more match", "a.py:3:z", "… 1 more match", "a.py:5:v"),
        "search",
        [],
        "fact_thinned",
      ],
      [
        "a search result whose matches were capped with no note",
        lines("a.py:1:x", "a.py:2:y", "a.py:3:z"),
        lines("a.py:1:x", "a.py:2:y"),
        "search",
        [],
        "fact_thinned",
      ],
      ["a placeholder that names nothing", read, "[]", "file", [], "fact_thinned"],
    ],
  )("%s", (_, original, replacement, contentClass, markers, expected) => {
    expect(checkFidelity(original, replacement, contentClass, markers)).toBe(expected);
  });
});
