import type { ComponentName } from "../config/schema.js";
import type { GateReason } from "./report.js";
import type { PipelineDeps, RunRequest } from "./run.js";
import type { Component } from "./types.js";

/**
 * Whether a component runs on this request at all (§4 `trigger`, §4a): a component missing from
 * the registry is unavailable; one that reaches back waits while the request is warm (unless it
 * is messages-scoped and gives back the summary the messages were sent with); a request with
 * fewer messages or tokens than the trigger asks for does not run it. Returns why a component
 * does not run, or undefined when it does. The request's tokens are counted once, when first
 * asked for.
 */
export function componentGates(
  deps: PipelineDeps,
  request: RunRequest,
): (name: ComponentName, component: Component | undefined) => GateReason | undefined {
  const { transcript, config } = request;
  let requestTokens: number | undefined;
  return (name, component) => {
    if (!component) return "unavailable";
    const { trigger } = config.components[name];
    const warmReplay = component.scope === "messages" && request.frozenSummary !== undefined;
    if (component.reachesBack && !request.redecide && !warmReplay) return "warm";
    if (trigger.min_messages > 0 && transcript.messageCount < trigger.min_messages) {
      return "min_messages";
    }
    if (trigger.min_request_tokens > 0) {
      requestTokens ??= transcript.strings.reduce(
        (sum, s) => sum + deps.tokens.estimate(s.text),
        0,
      );
      if (requestTokens < trigger.min_request_tokens) return "min_request_tokens";
    }
    return undefined;
  };
}
