import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { isFactClass } from "../content/content-class.js";
import { carriesMarker } from "../expand/markers.js";
import { askModel, reportSkipped } from "../model/ask.js";
import { ModelClient } from "../model/client.js";
import { defaultModelPool } from "../model/default-pool.js";
import type { ModelPool } from "../model/pool.js";
import type { ComponentContext, RequestComponent, Selection } from "../pipeline/types.js";
import type { ToolOutput } from "../wire/types.js";
import { selectionPrompt } from "./extract-llm/prompt.js";
import { isInOrderSubsequence, readSelection } from "./extract-llm/selection.js";
import { withMarkerLine } from "./marked-phrase.js";

/** Verified selections remembered per (goal, output); `null` for an answer that was refused. */
const MEMO_ENTRIES = 2048;

/**
 * `extract_llm` (§5, Offload, LLM-backed). For each tool output of at least `min_tokens` that is
 * not of a fact class (file reads, diffs and search results are never thinned line by line:
 * src/content/), the cheap model names the line ranges that matter for the current goal (the
 * last user message); the output becomes exactly those lines, in their original order, with a
 * note in place of each run of lines left out (`… (12 lines left out)`), then `\n` + T (T alone
 * when the kept text ends with `\n`; nothing in off mode). Deletion only: an answer that names a
 * line outside the output, or lists ranges out of order or overlapping, is refused and the output
 * stays verbatim, as it does when no model is configured or the model fails.
 *
 * Request-scoped because the answer depends on the goal; verified selections are memoised per
 * (goal, output) so an agent re-sending its history asks once, and the lines kept for an output
 * are remembered by its text so a later turn replays them whatever the goal has become.
 */
export function createExtractLlm(pool: ModelPool): RequestComponent<"extract_llm"> {
  const memo = new LRUCache<string, { kept: number[] | null }>({ max: MEMO_ENTRIES });
  const decided = new LRUCache<string, readonly number[]>({ max: MEMO_ENTRIES });
  return {
    name: "extract_llm",
    kind: "offload",
    scope: "request",
    reachesBack: false,
    bounds: false,
    readsLines: true,
    async select(options, context) {
      if (context.goal.trim() === "") return [];
      const candidates = context.outputs.filter(
        (output) =>
          context.mayChange(output.index) &&
          !isFactClass(output.contentClass) &&
          !carriesMarker(output.text) &&
          context.atLeastTokens(output.text, options.min_tokens),
      );
      if (candidates.length === 0) return [];
      const client = pool.clientFor(options.model, context.incoming);
      const report = context.reportModelCall?.bind(context);
      if (!(client instanceof ModelClient)) {
        reportSkipped(client, report);
        return [];
      }
      const picked = await Promise.all(
        candidates.map(async (output): Promise<Selection | undefined> => {
          const lines = output.text.split("\n");
          const key = memoKey(client, context.goal, output.text);
          let entry = memo.get(key);
          if (!entry) {
            let refused = false;
            const kept = await askModel(
              client,
              selectionPrompt(context.goal, output.call, lines),
              context.signal,
              (answer) => {
                const verdict = readSelection(answer, lines.length);
                refused = "rejected" in verdict;
                return verdict;
              },
              report,
            );
            if (kept === undefined && !refused) return undefined;
            entry = { kept: kept ?? null };
            memo.set(key, entry);
          }
          if (!entry.kept || entry.kept.length === lines.length) return undefined;
          decided.set(output.text, entry.kept);
          return { index: output.index };
        }),
      );
      return picked.filter((selection) => selection !== undefined);
    },
    reduce(output, _options, context) {
      const kept = decided.get(output.text);
      return kept === undefined ? undefined : extraction(output, kept, context);
    },
  };
}

export const extractLlm = createExtractLlm(defaultModelPool);

function extraction(
  output: ToolOutput,
  kept: readonly number[],
  context: ComponentContext,
): string | undefined {
  const lines = output.text.split("\n");
  if (kept.length === lines.length) return undefined;
  const keptLines = kept.map((index) => lines[index]);
  if (keptLines.some((line) => line === undefined)) return undefined;
  if (!isInOrderSubsequence(keptLines as string[], lines)) return undefined;
  return withMarkerLine(withGapNotes(lines, kept).join("\n"), context.marker(output.text));
}

/** The kept lines (0-based, increasing) with a note in place of each run of lines left out. */
export function withGapNotes(lines: readonly string[], kept: readonly number[]): string[] {
  const out: string[] = [];
  let next = 0;
  const gap = (to: number) => {
    const count = to - next;
    if (count > 0) out.push(`\u2026 (${count} ${count === 1 ? "line" : "lines"} left out)`);
  };
  for (const index of kept) {
    gap(index);
    out.push(lines[index] as string);
    next = index + 1;
  }
  gap(lines.length);
  return out;
}

function memoKey(client: ModelClient, goal: string, text: string): string {
  return createHash("sha256")
    .update(`${client.endpoint.key}\u0000${goal}\u0000`)
    .update(text)
    .digest("hex");
}
