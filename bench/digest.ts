import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { BenchApp, type Mode } from "./bench-app.js";
import type { BenchBody } from "./bench-body.js";
import { generateCorpus } from "./corpus/generate.js";
import { replaySessions, responsesSessions } from "./cost.js";
import { coldTurn, type ReplaySession, SCHEDULES } from "./cost-replay.js";
import { loadCorpus } from "./load-corpus.js";

const USAGE = `usage: npm run bench:digest -- [options]
  --corpus DIR   a folder of {provider, body} JSON files (default: ../shared/corpus/agent when
                 present) replayed beside the generated corpus
  --verbose      one digest per corpus, form, mode and schedule

One SHA-256 digest over every compaction of the session cost replay (SPEC §11): both corpora,
both modes, the sessions as captured and their chat sessions in Responses form, every schedule;
each answer's body and its cache headers. A change that must not change what the service
returns leaves it as it was.`;

interface Corpus {
  readonly name: string;
  readonly bodies: readonly BenchBody[];
}

function corpora(folder: string | undefined): Corpus[] {
  const generated = generateCorpus({ sessions: 6, seed: 1 }).map((entry) => ({
    name: entry.name,
    provider: entry.provider,
    session: `g${entry.session}/${entry.provider}`,
    body: entry.body,
  }));
  const list: Corpus[] = [];
  const path = resolve(folder ?? "../shared/corpus/agent");
  if (existsSync(path)) list.push({ name: path, bodies: loadCorpus(path) });
  else console.error(`corpus not found at ${path}: only the generated corpus is replayed`);
  list.push({ name: "generated (sessions 6, seed 1)", bodies: generated });
  return list;
}

async function digestOf(sessions: readonly ReplaySession[], mode: Mode): Promise<string[]> {
  const digests: string[] = [];
  for (const schedule of SCHEDULES) {
    const app = await BenchApp.start(mode, undefined);
    const hash = createHash("sha256");
    for (const session of sessions) {
      for (const [index, turn] of session.turns.entries()) {
        const cold = schedule !== "warm" && coldTurn(schedule, index + 1);
        const headers: Record<string, string> = cold ? { "x-context-guru-cache": "cold" } : {};
        const answer = await app.compact(turn, `digest-${schedule}-${session.name}`, headers);
        hash.update(`${answer.cache}\u0000${answer.cacheReason}\u0000${answer.text}\u0000`);
      }
    }
    await app.close();
    digests.push(`${schedule} ${hash.digest("hex")}`);
  }
  return digests;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      corpus: { type: "string" },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const total = createHash("sha256");
  let compactions = 0;
  for (const corpus of corpora(values.corpus)) {
    const sessions = replaySessions(corpus.bodies);
    const forms = [
      { form: "as captured", sessions },
      { form: "Responses form", sessions: responsesSessions(sessions) },
    ];
    for (const { form, sessions: replayed } of forms) {
      const turns = replayed.reduce((sum, session) => sum + session.turns.length, 0);
      for (const mode of ["reversible", "clean"] as const) {
        const digests = await digestOf(replayed, mode);
        compactions += turns * digests.length;
        for (const line of digests) {
          total.update(`${line}\n`);
          if (values.verbose) console.log(`${corpus.name} | ${form} | ${mode} | ${line}`);
        }
      }
    }
  }
  console.log(`${total.digest("hex")}  (${compactions} compactions)`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  console.error(USAGE);
  process.exitCode = 1;
});
