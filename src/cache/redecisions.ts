import type { ComponentName } from "../config/schema.js";
import { SizedMemo } from "../pipeline/sized-memo.js";
import type { Provider } from "../wire/types.js";

/** What a cold re-decision of a warm request came to: enough to judge it again without a run. */
export interface Redecision {
  /** The re-decided body and its message tokens; undefined when it could not be written back. */
  readonly decided: { readonly text: string; readonly tokens: number } | undefined;
  /** Whether the re-decided body carries the expand tool. */
  readonly tool: boolean;
}

/** Components whose decisions come from a model: a re-decision with one is never remembered. */
const MODEL_BACKED: readonly ComponentName[] = ["summarize", "extract_llm"];

interface Entry {
  /** The shape and the pipeline the request was decided with. */
  readonly names: string;
  readonly kept: string;
  readonly redecision: Redecision;
}

/**
 * Re-decisions of warm requests' heads (§4a), remembered by request. A request whose estimate
 * calls for a re-decision that its result then refuses would otherwise run it again, to be
 * refused again, each time an agent re-sends it. A re-decision depends only on the request's
 * text, the shape it is read as, its pipeline and the originals the model expanded (the
 * configuration and the memos are the compactor's own), so one remembered is judged again as it
 * came out; one the judgement now takes is run for real.
 */
export class Redecisions {
  readonly #memo: SizedMemo<Entry>;

  /** `maxChars` bounds the request and re-decided texts held. */
  constructor(maxChars: number) {
    this.#memo = new SizedMemo(
      maxChars,
      (text, entry) => text.length + (entry.redecision.decided?.text.length ?? 0) + 64,
    );
  }

  get(
    text: string,
    provider: Provider,
    names: readonly ComponentName[],
    kept: ReadonlySet<string>,
  ): Redecision | undefined {
    const entry = this.#memo.get(text);
    if (entry?.names !== `${provider}:${names.join()}` || entry.kept !== keyOf(kept)) {
      return undefined;
    }
    return entry.redecision;
  }

  set(
    text: string,
    provider: Provider,
    names: readonly ComponentName[],
    kept: ReadonlySet<string>,
    redecision: Redecision,
  ): void {
    if (names.some((name) => MODEL_BACKED.includes(name))) return;
    this.#memo.set(text, { names: `${provider}:${names.join()}`, kept: keyOf(kept), redecision });
  }
}

const keyOf = (kept: ReadonlySet<string>) => [...kept].sort().join();
