import { createHash } from "node:crypto";
import { carriesMarker } from "../expand/markers.js";
import { askModel, reportSkipped, type Verdict } from "../model/ask.js";
import { ModelClient } from "../model/client.js";
import { defaultModelPool } from "../model/default-pool.js";
import type { ModelPool } from "../model/pool.js";
import type {
  ComponentContext,
  MessagesComponent,
  MessagesReplacement,
  MessagesView,
} from "../pipeline/types.js";
import { type Cut, chooseCut, keepsToolPairs, MIN_SPAN, summaryRole } from "./summarize/cut.js";
import { summaryPrompt } from "./summarize/prompt.js";
import { SummaryCache } from "./summarize/reuse.js";

/**
 * `summarize` (§5, Offload, LLM-backed): keeps the head (system messages and the first message)
 * and at least the last `keep_last` messages, and replaces the middle with one summary message
 * from the cheap model: `[summary of N earlier messages]`, the summary, then T on its own line
 * (nothing in off mode). The cut never separates a tool result from its call. In full mode the
 * pipeline stashes the exact raw JSON of the replaced messages under T's id.
 *
 * Later turns of the same conversation reuse the summary (same bytes, no model call) while the
 * messages that arrived after it and would otherwise be summarized hold at most
 * `resummarize_tokens`; past that, the whole middle is summarized again. No model, a failed call
 * or an answer that carries a marker leave the request as it was. A summary reaches back, so a
 * new one is made only when the head may be re-decided (§4a); a warm request gets the earlier
 * one again or none.
 */
export function createSummarize(pool: ModelPool): MessagesComponent<"summarize"> {
  const cache = new SummaryCache();
  return {
    name: "summarize",
    kind: "offload",
    scope: "messages",
    reachesBack: true,
    bounds: false,
    readsLines: false,
    async reduce(options, context, view) {
      const cut = chooseCut(view.messages, options.keep_last);
      if (!cut) return undefined;
      const client = pool.clientFor(options.model, context.incoming);
      if (!(client instanceof ModelClient)) {
        reportSkipped(client, context.reportModelCall?.bind(context));
        return undefined;
      }
      const scope = `${options.level}\u0000${client.endpoint.key}\u0000`;
      const headKey = digest(scope, view.raw(0, cut.from + 1));
      // A warm request keeps the summary it was sent with, however much came after it (§4a).
      const limit = context.redecide ? options.resummarize_tokens : Number.POSITIVE_INFINITY;
      for (const prior of cache.recent(headKey)) {
        const reused = reusable(prior, cut, view, scope, context, limit);
        if (reused) return replacement(reused, prior.summary, view, context);
      }
      if (!context.redecide) return undefined;
      const summary = await askModel(
        client,
        summaryPrompt(options.level, view.messages.slice(cut.from, cut.to)),
        context.signal,
        readSummary,
        context.reportModelCall?.bind(context),
      );
      if (summary === undefined) return undefined;
      cache.remember(headKey, {
        to: cut.to,
        spanKey: digest(scope, view.raw(cut.from, cut.to)),
        summary,
      });
      return replacement(cut, summary, view, context);
    },
  };
}

export const summarize = createSummarize(defaultModelPool);

/** The earlier cut when its span is unchanged and what came after it is still small enough. */
function reusable(
  prior: { readonly to: number; readonly spanKey: string },
  cut: Cut,
  view: MessagesView,
  scope: string,
  context: ComponentContext,
  resummarizeTokens: number,
): Cut | undefined {
  const { from } = cut;
  if (prior.to > cut.to || prior.to - from < MIN_SPAN) return undefined;
  const role = summaryRole(view.messages[prior.to]);
  if (!role || !keepsToolPairs(view.messages, from, prior.to)) return undefined;
  if (digest(scope, view.raw(from, prior.to)) !== prior.spanKey) return undefined;
  let fresh = 0;
  for (let index = prior.to; index < cut.to; index++) {
    fresh += context.tokens(view.messages[index]?.text ?? "");
    if (fresh > resummarizeTokens) return undefined;
  }
  return { from, to: prior.to, role };
}

function replacement(
  cut: Cut,
  summary: string,
  view: MessagesView,
  context: ComponentContext,
): MessagesReplacement {
  const marker = context.marker(view.raw(cut.from, cut.to));
  const text = `[summary of ${cut.to - cut.from} earlier messages]\n${summary}`;
  return { ...cut, message: marker === "" ? text : `${text}\n${marker}` };
}

function readSummary(answer: string): Verdict<string> {
  const summary = answer.trim();
  if (summary === "") return { rejected: "answer is empty" };
  if (carriesMarker(summary)) return { rejected: "answer carries a marker" };
  return { value: summary };
}

function digest(scope: string, raw: string): string {
  return createHash("sha256").update(scope).update(raw).digest("hex");
}
