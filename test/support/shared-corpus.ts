import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** ../shared/corpus beside the repository; absent on machines without it. */
export const SHARED_CORPUS = resolve(import.meta.dirname, "../../../shared/corpus");
export const hasSharedCorpus = existsSync(SHARED_CORPUS);

if (!hasSharedCorpus) {
  console.warn(`shared corpus not found at ${SHARED_CORPUS}: corpus-based tests are skipped`);
}

export interface CorpusBody {
  readonly file: string;
  readonly provider: "openai" | "anthropic";
  readonly session: number;
  readonly turns: number;
  /** The request body as JSON text. */
  readonly body: string;
}

/** Every body of ../shared/corpus/agent in index order. */
export function agentBodies(): CorpusBody[] {
  const dir = join(SHARED_CORPUS, "agent");
  const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8")) as Array<
    Omit<CorpusBody, "body">
  >;
  return index.map((entry) => {
    const { body } = JSON.parse(readFileSync(join(dir, entry.file), "utf8")) as { body: unknown };
    return { ...entry, body: JSON.stringify(body) };
  });
}

export function readShared(path: string): string {
  return readFileSync(join(SHARED_CORPUS, path), "utf8");
}

/**
 * A corpus body of more turns than this has older outputs its agent no longer works with, so a
 * cold decision reduces it (§5 mask by need). Shorter ones may be all working set: s1-t004's
 * four outputs are views of the file it is editing and a one-line search.
 */
export const REDUCED_PAST_TURNS = 10;
