import type { Provider } from "../../src/wire/types.js";
import { makeProject } from "./project.js";
import { Random } from "./random.js";
import { anthropicBody, openaiBody, type SessionFrame } from "./render.js";
import { writeScript } from "./script.js";

/** One request body of the generated corpus. */
export interface CorpusEntry {
  /** e.g. `g3-t024-anthropic`: session 3, 24 assistant turns, Anthropic shape. */
  readonly name: string;
  readonly provider: Provider;
  readonly session: number;
  /** Assistant turns (tool-calling steps) the body holds. */
  readonly turn: number;
  /** Tool outputs the body holds: one string each for the wire layer. */
  readonly toolOutputs: number;
  /** The request body as JSON text, exactly as a client would send it. */
  readonly body: string;
}

export interface CorpusOptions {
  readonly sessions: number;
  readonly seed: number;
  /** Checkpoints emitted per session as its transcript grows (default 4). */
  readonly checkpoints?: number;
  /** Inclusive range of assistant turns per session (default 16–60). */
  readonly turns?: readonly [number, number];
}

const SYSTEMS = [
  "You are a coding agent working in a repository. Use the Read tool to read files and the Bash tool to run commands. Fix the issue the user describes, run the tests, then explain the fix.",
  "You are an autonomous software engineer. Prefer small, verified changes: read the code, reproduce the failure, fix it, and keep the test suite green.",
];
const GOALS = [
  "The tests fail after the last merge — find out why “{word}” returns the wrong value and fix it.",
  "Fix the regression in {word}: it breaks for names with accents like café or Zoë. Keep the public API unchanged.",
  "CI is red on main. Make the test suite pass again without skipping tests → then summarise the root cause.",
];

/**
 * A corpus of agent sessions the project generates itself (deterministic for a seed): each
 * session is replayed at several checkpoints as its transcript grows, in both OpenAI and
 * Anthropic shapes; consecutive checkpoints of a session share their prefix byte for byte.
 */
export function generateCorpus(options: CorpusOptions): CorpusEntry[] {
  const { sessions, seed, checkpoints = 4, turns = [16, 60] } = options;
  if (!Number.isInteger(sessions) || sessions < 0) {
    throw new RangeError(`sessions must be a non-negative integer, got ${sessions}`);
  }
  if (!Number.isInteger(checkpoints) || checkpoints < 1) {
    throw new RangeError(`checkpoints must be a positive integer, got ${checkpoints}`);
  }
  const [fewest, most] = turns;
  if (!Number.isInteger(fewest) || fewest < 6 || most < fewest) {
    throw new RangeError(`turns must be a range [min, max] with 6 ≤ min ≤ max`);
  }
  const random = new Random(seed);
  const entries: CorpusEntry[] = [];
  for (let session = 0; session < sessions; session++) {
    const own = random.fork();
    const project = makeProject(own);
    const steps = writeScript(project, own.fork(), own.int(fewest, most));
    const frame: SessionFrame = {
      system: own.pick(SYSTEMS),
      goal: own.pick(GOALS).replace("{word}", own.pick(project.words)),
      indent: own.chance(0.25) ? 2 : 0,
      bigSeed: `1${String(own.int(0, 999_999_999)).padStart(9, "0")}${String(own.int(0, 999_999_999)).padStart(9, "0")}`,
      userId: `user_${own.hex(32)}_session_${own.hex(8)}`,
    };
    const marks = new Set(
      Array.from({ length: checkpoints }, (_, at) =>
        Math.ceil((steps.length * (at + 1)) / checkpoints),
      ),
    );
    for (const turn of marks) {
      const included = steps.slice(0, turn);
      const toolOutputs = included.reduce((sum, step) => sum + step.calls.length, 0);
      const label = `g${session}-t${String(turn).padStart(3, "0")}`;
      entries.push(
        {
          name: `${label}-openai`,
          provider: "openai",
          session,
          turn,
          toolOutputs,
          body: openaiBody(frame, included),
        },
        {
          name: `${label}-anthropic`,
          provider: "anthropic",
          session,
          turn,
          toolOutputs,
          body: anthropicBody(frame, included),
        },
      );
    }
  }
  return entries;
}
