/**
 * The scripted session, as moves of the model: the 10-turn session of the issue (read a file,
 * a 3,000-line log, `head -n 400`, `seq 1 5000`, `grep -rn`, a failing test, an edit, the test
 * again, `git diff`, the answer), then what a resumed fork does (one more command, an answer).
 * Each move has a tag the model writes into what it sends (tool call ids, answer texts,
 * summaries), so it finds its place again from any request, compacted histories included.
 */

export type Move =
  | { readonly kind: "shell"; readonly tag: string; readonly command: string }
  | { readonly kind: "read"; readonly tag: string; readonly path: string }
  | {
      readonly kind: "edit";
      readonly tag: string;
      readonly path: string;
      readonly before: string;
      readonly after: string;
    }
  | { readonly kind: "answer"; readonly tag: string; readonly text: string };

/** The final answer of the session; the harness looks for it in the CLI's output. */
export const SESSION_ANSWER = "E2E-DONE: add() subtracted; it adds now and every test passes.";
/** The final answer of a resumed fork. */
export const FORK_ANSWER = "E2E-FORK-DONE: the fix is the last commit's only change.";

export const MOVES: readonly Move[] = [
  { kind: "read", tag: "m01", path: "src/calc.mjs" },
  { kind: "shell", tag: "m02", command: "cat logs/app.log" },
  { kind: "shell", tag: "m03", command: "head -n 400 src/server.mjs" },
  { kind: "shell", tag: "m04", command: "seq 1 5000" },
  { kind: "shell", tag: "m05", command: 'grep -rn "TODO" src' },
  { kind: "shell", tag: "m06", command: "sh run-tests.sh" },
  {
    kind: "edit",
    tag: "m07",
    path: "src/calc.mjs",
    before: "  return a - b;",
    after: "  return a + b;",
  },
  { kind: "shell", tag: "m08", command: "sh run-tests.sh" },
  { kind: "shell", tag: "m09", command: "git diff" },
  { kind: "answer", tag: "m10", text: SESSION_ANSWER },
  { kind: "shell", tag: "m11", command: "git status --short" },
  { kind: "answer", tag: "m12", text: FORK_ANSWER },
];

/** Moves that call a tool (the session's tool turns). */
export const TOOL_TURNS = MOVES.filter((move) => move.kind !== "answer").length;

const TAG = /e2e[_-]m(\d{2})/g;

/** The number of the latest move whose tag appears in `text`, or 0. */
export function latestMove(text: string): number {
  let latest = 0;
  for (const match of text.matchAll(TAG)) latest = Math.max(latest, Number(match[1]));
  return latest;
}

/** The move after the latest one found, or undefined when the script is done. */
export function nextMove(latest: number): Move | undefined {
  return MOVES[latest];
}

/** The tag the model writes into a text so a later request shows how far the session got. */
export function progressTag(latest: number): string {
  return `[e2e-m${String(latest).padStart(2, "0")}]`;
}

/** A tool call id that carries the move's tag. */
export function callIdOf(prefix: "toolu" | "call", move: Move): string {
  return `${prefix}_e2e_${move.tag}`;
}
