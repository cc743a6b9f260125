import type { MarkerMode } from "../config/schema.js";
import { EXPAND_HINT, markerFor, SENTINEL } from "../expand/markers.js";
import type { ToolOutput } from "../wire/types.js";
import type { OutputState } from "./output-state.js";
import type { ComponentReport } from "./report.js";
import type { PipelineDeps, RunRequest } from "./run.js";
import type { ComponentContext } from "./types.js";

/**
 * What the pipeline lends one component for one run: every output as it stands, which of them it
 * may change, and a marker function that records what must be stashed under each id it hands out
 * (into `pending`, which the pipeline reads when it keeps a change).
 */
export function componentContext(
  deps: PipelineDeps,
  request: RunRequest,
  state: OutputState,
  entry: ComponentReport,
  mode: MarkerMode,
  mayChange: (index: number) => boolean,
  pending: Map<string, string>,
): ComponentContext {
  const { transcript } = request;
  const outputs: ToolOutput[] = transcript.outputs.map((output, index) =>
    output.text === state.current[index]
      ? output
      : { ...output, text: state.current[index] as string },
  );
  return {
    provider: transcript.provider,
    outputs,
    mayChange,
    wasOffloaded: (index) => state.offloaded[index] === true,
    redecide: request.redecide,
    messageCount: transcript.messageCount,
    goal: transcript.goal,
    mode,
    hint: mode === "full" ? EXPAND_HINT : "",
    marker(original) {
      if (mode === "off") return "";
      if (mode === "summary") return SENTINEL;
      const id = deps.hash(original);
      pending.set(id, original);
      return markerFor(id);
    },
    tokens: (text) => deps.tokens.count(text),
    atLeastTokens: (text, limit) => deps.tokens.atLeast(text, limit),
    signal: request.signal,
    ...(request.incoming ? { incoming: request.incoming } : {}),
    reportModelCall(call) {
      entry.modelCalls ??= [];
      entry.modelCalls.push(call);
    },
  };
}
