import type { Verdict } from "../../model/ask.js";

/**
 * Reads a model's line selection, `{"ranges":[[first,last],...]}` with 1-based inclusive line
 * numbers (a bare number is a one-line range), and verifies it against the output's `lineCount`
 * lines: ranges must be in bounds (a line past the end would be invented) and strictly
 * increasing without overlap (anything else would reorder or repeat lines). Code fences and
 * prose around the JSON object are tolerated. The value is the 0-based indexes of kept lines.
 */
export function readSelection(answer: string, lineCount: number): Verdict<number[]> {
  const open = answer.indexOf("{");
  const close = answer.lastIndexOf("}");
  if (open < 0 || close < open) return { rejected: "answer holds no JSON object" };
  let json: unknown;
  try {
    json = JSON.parse(answer.slice(open, close + 1));
  } catch {
    return { rejected: "answer is not valid JSON" };
  }
  const ranges =
    typeof json === "object" && json !== null && "ranges" in json ? json.ranges : undefined;
  if (!Array.isArray(ranges)) return { rejected: "answer has no ranges array" };
  const kept: number[] = [];
  for (const range of ranges as unknown[]) {
    const pair = Array.isArray(range) ? range : [range, range];
    const [first, last] = pair as unknown[];
    if (pair.length !== 2 || !Number.isInteger(first) || !Number.isInteger(last)) {
      return { rejected: `range ${JSON.stringify(range)} is not a pair of line numbers` };
    }
    const from = first as number;
    const to = last as number;
    if (from > to) return { rejected: `range [${from},${to}] is reversed` };
    if (from < 1 || to > lineCount) {
      return { rejected: `range [${from},${to}] names lines outside 1..${lineCount}` };
    }
    const previous = kept.at(-1);
    if (previous !== undefined && from - 1 <= previous) {
      return { rejected: `range [${from},${to}] overlaps or precedes an earlier range` };
    }
    for (let line = from; line <= to; line++) kept.push(line - 1);
  }
  if (kept.length === 0) return { rejected: "answer selects no lines" };
  return { value: kept };
}

/**
 * True when `kept` is an in-order subsequence of `lines`: every kept line appears in the
 * original, in the same order, each original line used at most once. The final check before
 * an extraction replaces an output: nothing invented, nothing reordered.
 */
export function isInOrderSubsequence(kept: readonly string[], lines: readonly string[]): boolean {
  let at = 0;
  for (const line of kept) {
    while (at < lines.length && lines[at] !== line) at++;
    if (at === lines.length) return false;
    at++;
  }
  return true;
}
