import { createHash } from "node:crypto";
import { LRUCache } from "lru-cache";
import { isFactClass } from "../content/content-class.js";
import { carriesMarker } from "../expand/markers.js";
import { askModel, reportSkipped } from "../model/ask.js";
import { ModelClient } from "../model/client.js";
import { defaultModelPool } from "../model/default-pool.js";
import type { ModelPool } from "../model/pool.js";
import type { Change, ComponentContext, RequestComponent } from "../pipeline/types.js";
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
 * (goal, output) so an agent re-sending its history asks once.
 */
export function createExtractLlm(pool: ModelPool): RequestComponent<"extract_llm"> {
  const memo = new LRUCache<string, { kept: number[] | null }>({ max: MEMO_ENTRIES });
  return {
    name: "extract_llm",
    kind: "offload",
    scope: "request",
    async reduce(options, context) {
      if (context.goal.trim() === "") return [];
      const candidates = context.outputs.filter(
        (output) =>
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
      const changes = await Promise.all(
        candidates.map(async (output): Promise<Change | undefined> => {
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
          return entry.kept ? extraction(output, lines, entry.kept, context) : undefined;
        }),
      );
      return changes.filter((change) => change !== undefined);
    },
  };
}

export const extractLlm = createExtractLlm(defaultModelPool);

function extraction(
  output: ToolOutput,
  lines: readonly string[],
  kept: readonly number[],
  context: ComponentContext,
): Change | undefined {
  if (kept.length === lines.length) return undefined;
  const keptLines = kept.map((index) => lines[index] as string);
  if (!isInOrderSubsequence(keptLines, lines)) return undefined;
  return {
    index: output.index,
    text: withMarkerLine(withGapNotes(lines, kept).join("\n"), context.marker(output.text)),
  };
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
