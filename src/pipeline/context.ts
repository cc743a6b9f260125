import type { MarkerMode } from "../config/schema.js";
import { EXPAND_HINT, markerFor, SENTINEL } from "../expand/markers.js";
import type { ToolOutput } from "../wire/types.js";
import type { OutputState } from "./output-state.js";
import type { ComponentReport } from "./report.js";
import type { PipelineDeps, RunRequest } from "./run.js";
import type { ComponentContext } from "./types.js";

/** Every output as it stands in `state`. */
export function currentOutputs(request: RunRequest, state: OutputState): ToolOutput[] {
  return request.transcript.outputs.map((_, index) => currentOutput(request, state, index));
}

/** Output `index` as it stands in `state`. */
export function currentOutput(request: RunRequest, state: OutputState, index: number): ToolOutput {
  const output = request.transcript.outputs[index] as ToolOutput;
  const text = state.current[index] as string;
  return output.text === text ? output : { ...output, text };
}

/**
 * What the pipeline lends one component for one run: every output as it stands (`outputs`, when
 * the caller keeps them current itself), which of them it may change, and a marker function
 * that records what must be stashed under each id it hands out (into `pending`, which the
 * pipeline reads when it keeps a change).
 */
export function componentContext(
  deps: PipelineDeps,
  request: RunRequest,
  state: OutputState,
  entry: ComponentReport,
  mode: MarkerMode,
  mayChange: (index: number) => boolean,
  pending: Map<string, string>,
  outputs: ToolOutput[] = currentOutputs(request, state),
): ComponentContext {
  const { transcript } = request;
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
