import { needsPieces } from "../store/pieces.js";
import type { OneWayReason } from "./report.js";

/**
 * The last resort for an output too big to send on (§1): when the store could not keep a
 * request's originals (its session's quota or the store's bound exceeded, the store down), an
 * output larger than one store entry is not sent on unreduced. It keeps its head and its tail
 * (at most `EDGE_LINES` lines and `EDGE_CHARS` characters each) and says, in the text, how much
 * was left out and that it cannot be recovered: no marker, since nothing was kept to resolve it.
 */
const EDGE_LINES = 40;
const EDGE_CHARS = 4096;

/** How a request whose originals the store could not keep is reduced (pipeline/run.ts). */
export interface OneWay {
  /** Outputs still larger than this many bytes are cut one-way with a note. */
  readonly above: number;
  /** Why the store could not keep them (for the report). */
  readonly reason: OneWayReason;
  /**
   * Set when nothing of the request can be stashed however it is reduced (the store could not
   * take its originals together): every component runs in `summary` marker mode, each drop
   * marked by the non-resolvable sentinel and nothing stashed, and every output an offload
   * changed counts as reduced one-way. False: the components it is given run as they are (the
   * lossless reformats, when the store is down).
   */
  readonly all: boolean;
}

export function oneWayNote(omitted: number, unit: "lines" | "characters"): string {
  return `… (${omitted} ${unit} omitted; the original could not be kept)`;
}

/**
 * Cuts, in place, every text over `aboveBytes` UTF-8 bytes; returns how many were cut that
 * `counted` (outputs already reduced one-way) did not hold.
 */
export function cutOneWay(
  texts: string[],
  aboveBytes: number,
  counted: readonly boolean[] = [],
): number {
  let cut = 0;
  texts.forEach((text, index) => {
    if (!needsPieces(text, aboveBytes)) return;
    texts[index] = cutText(text);
    if (counted[index] !== true) cut++;
  });
  return cut;
}

/** `text`'s head and tail around a note of what was left out between them. */
export function cutText(text: string): string {
  const headEnd = headLength(text);
  const tailStart = Math.max(headEnd, text.length - tailLength(text));
  const middle = text.slice(headEnd, tailStart);
  let lines = 0;
  for (let at = middle.indexOf("\n"); at >= 0; at = middle.indexOf("\n", at + 1)) lines++;
  // A middle cut at line ends is counted in lines; a cut inside one long line, in characters.
  const note =
    lines > 0 && middle.endsWith("\n")
      ? oneWayNote(lines, "lines")
      : oneWayNote(middle.length, "characters");
  const head = text.slice(0, headEnd);
  const tail = text.slice(tailStart);
  return `${head}${head === "" || head.endsWith("\n") ? "" : "\n"}${note}\n${tail}`;
}

/** Characters of the head: whole lines up to the bounds, else the first EDGE_CHARS. */
function headLength(text: string): number {
  let end = 0;
  for (let line = 0; line < EDGE_LINES; line++) {
    const next = text.indexOf("\n", end);
    if (next < 0 || next + 1 > EDGE_CHARS) break;
    end = next + 1;
  }
  return end > 0 ? end : Math.min(EDGE_CHARS, text.length);
}

/** Characters of the tail: whole lines back from the end up to the bounds, else the last EDGE_CHARS. */
function tailLength(text: string): number {
  const limit = text.length - EDGE_CHARS;
  let start = text.endsWith("\n") ? text.length - 1 : text.length;
  let lines = 0;
  while (lines < EDGE_LINES) {
    const previous = text.lastIndexOf("\n", start - 1);
    if (previous < 0 || previous + 1 < limit) break;
    start = previous;
    lines++;
  }
  const from = lines > 0 ? start + 1 : Math.max(0, limit);
  return text.length - from;
}
