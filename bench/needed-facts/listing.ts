/**
 * The line-number column of a numbered listing (a Read tool's `    12→`, `cat -n` and `nl`'s
 * `    12\t`) is where a line sits, not something the output says: an output whose non-empty
 * lines mostly start with such a column, numbered upwards, is searched without it, so `557` is a
 * fact of `query.py:557: def combine` but not of the listing line `557\tdef combine`.
 */

const COLUMN = /^[ \t]*(\d+)(?:→|\t)/;

/** The text with its listing column removed from each line, or as it is when it is no listing. */
export function withoutListingColumn(text: string): string {
  const lines = text.split("\n");
  let numbered = 0;
  let filled = 0;
  let previous = -1;
  for (const line of lines) {
    if (line.trim() === "") continue;
    filled++;
    const match = COLUMN.exec(line);
    if (!match) continue;
    const number = Number(match[1]);
    if (number <= previous) return text;
    previous = number;
    numbered++;
  }
  if (numbered < 2 || numbered * 2 < filled) return text;
  return lines.map((line) => line.replace(COLUMN, "")).join("\n");
}
