import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The README and docs read once through: every Markdown table renders (a header row, a
 * `|---|` separator row, rows with the header's number of cells), every code fence closes, and
 * no sentence or section heading appears twice in one file (an older copy left behind).
 */
const root = join(import.meta.dirname, "../..");
const files = [
  "README.md",
  "k8s/README.md",
  ...readdirSync(join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name}`),
];

/** The file's lines outside code fences, with their line numbers; throws on an open fence. */
function prose(text: string): Array<{ line: number; text: string }> {
  const lines: Array<{ line: number; text: string }> = [];
  let fenced = false;
  text.split("\n").forEach((line, index) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) lines.push({ line: index + 1, text: line });
  });
  if (fenced) throw new Error("a code fence never closes");
  return lines;
}

/** A table row's cells: `|` outside code spans and not escaped. */
function cells(row: string): number {
  let count = 0;
  let code = false;
  for (let at = 0; at < row.length; at++) {
    const character = row[at];
    if (character === "`") code = !code;
    else if (character === "\\") at++;
    else if (character === "|" && !code) count++;
  }
  return count - 1;
}

describe.each(files)("%s", (file) => {
  const text = readFileSync(join(root, file), "utf8");

  it("every table has a separator row and rows of its header's width", () => {
    const lines = prose(text);
    const problems: string[] = [];
    for (let at = 0; at < lines.length; at++) {
      const start = lines[at] as { line: number; text: string };
      if (!start.text.startsWith("|") || lines[at - 1]?.text.startsWith("|")) continue;
      const width = cells(start.text);
      const separator = lines[at + 1]?.text ?? "";
      if (!/^\|(?:\s*:?-{3,}:?\s*\|)+\s*$/.test(separator) || cells(separator) !== width) {
        problems.push(`line ${start.line}: no separator row under the header`);
      }
      for (let row = at + 1; lines[row]?.text.startsWith("|"); row++) {
        const line = lines[row] as { line: number; text: string };
        if (cells(line.text) !== width)
          problems.push(`line ${line.line}: ${cells(line.text)} cells, header ${width}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("no sentence or heading appears twice", () => {
    const blocks = new Map<string, number>();
    const repeated: string[] = [];
    let block: string[] = [];
    let first = 0;
    const close = () => {
      const paragraph = block.join(" ").replace(/\s+/g, " ").trim();
      block = [];
      // Sentences, so an older copy spliced into another paragraph is found too.
      const sentences = paragraph.startsWith("#")
        ? [paragraph]
        : paragraph.split(/(?<=\.) (?=[A-Z`])/);
      for (const sentence of sentences) {
        if (sentence.length < 60 && !sentence.startsWith("#")) continue;
        const seen = blocks.get(sentence);
        if (seen !== undefined)
          repeated.push(`line ${first} repeats line ${seen}: ${sentence.slice(0, 80)}`);
        else blocks.set(sentence, first);
      }
    };
    for (const { line, text: content } of prose(text)) {
      if (content.trim() === "" || content.startsWith("|") || content.startsWith("#")) {
        close();
        if (content.startsWith("#")) {
          block = [content];
          first = line;
          close();
        }
        continue;
      }
      if (block.length === 0) first = line;
      block.push(content);
    }
    close();
    expect(repeated).toEqual([]);
  });

  it("no sentence breaks off at the end of a paragraph", () => {
    const broken = prose(text)
      .map(({ line, text: content }, index, lines) => ({
        line,
        content,
        next: lines[index + 1]?.text,
      }))
      .filter(
        ({ content, next }) =>
          /[/,(]\s*$|\b(?:and|or|the|a|to)\s*$/.test(content) &&
          (next === undefined || next.trim() === ""),
      )
      .map(({ line, content }) => `line ${line}: ${content}`);
    expect(broken).toEqual([]);
  });
});
