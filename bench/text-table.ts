import type { Schedule } from "./cost-replay.js";

/** Plain-text tables and figures of the bench's reports. */

export const percent = (share: number | null) =>
  share === null ? "n/a" : `${(share * 100).toFixed(1)}%`;
export const signed = (share: number) => `${share > 0 ? "+" : ""}${(share * 100).toFixed(1)}%`;

export const SCHEDULE_LABELS: Readonly<Record<Schedule, string>> = {
  warm: "always warm",
  "cold-every-10": "cold on turn 1 and every 10th",
  cold: "every turn cold",
};

/** A table: the first column left-aligned, the others right-aligned, a rule under the header. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join("  ");
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...rows.map(line)].join(
    "\n",
  );
}
