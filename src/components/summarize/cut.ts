import { carriesMarker } from "../../expand/markers.js";
import type { MessageView } from "../../pipeline/types.js";

/** Where a summary goes: messages[from..to) become one message with `role`. */
export interface Cut {
  readonly from: number;
  readonly to: number;
  readonly role: "user" | "assistant";
}

/** Fewest messages worth a summary. */
export const MIN_SPAN = 2;
const HEAD_ROLES = new Set(["system", "developer"]);

/**
 * The span to summarize. The head stays: leading system/developer messages and the first
 * message after them (the task), and everything up to the last message that already carries a
 * marker (an earlier summary is never summarized again). The tail stays: at least the last
 * `keepLast` messages. The cut then moves towards the head until it separates no tool result
 * from its call, in either direction, and the first kept message after the summary can follow
 * it: an assistant message (the summary is then a user message) or a user message that answers
 * no tool call (the summary is then an assistant message). Undefined when no span of at least
 * MIN_SPAN messages qualifies.
 */
export function chooseCut(messages: readonly MessageView[], keepLast: number): Cut | undefined {
  let from = 0;
  while (from < messages.length && HEAD_ROLES.has(messages[from]?.role ?? "")) from++;
  from++;
  for (let index = messages.length - 1; index >= from; index--) {
    if (carriesMarker(messages[index]?.text ?? "")) {
      from = index + 1;
      break;
    }
  }
  const last = messages.length - keepLast;
  if (last - from < MIN_SPAN) return undefined;
  const valid = pairSafeEnds(messages, from, last);
  for (let to = last; to - from >= MIN_SPAN; to--) {
    const role = valid[to - from] ? summaryRole(messages[to]) : undefined;
    if (role) return { from, to, role };
  }
  return undefined;
}

/** The summary's role when `next` follows it, or undefined when `next` cannot follow a summary. */
export function summaryRole(next: MessageView | undefined): Cut["role"] | undefined {
  if (next?.role === "assistant") return "user";
  if (next?.role === "user" && next.resultIds.length === 0) return "assistant";
  return undefined;
}

/** True when messages[from..to) is a valid span: no tool call and its result on both sides. */
export function keepsToolPairs(
  messages: readonly MessageView[],
  from: number,
  to: number,
): boolean {
  return pairSafeEnds(messages, from, to)[to - from] === true;
}

/**
 * For every end `to` in from..last, whether messages[from..to) keeps every tool call with its
 * results: each result in the span answers a call in the span, and no message from `to` on
 * answers a call in the span. Linear: one pass for where each call is made and answered.
 */
function pairSafeEnds(messages: readonly MessageView[], from: number, last: number): boolean[] {
  const calledAt = new Map<string, number>();
  const answeredAt = new Map<string, number>();
  messages.forEach((message, index) => {
    for (const id of message.callIds) if (!calledAt.has(id)) calledAt.set(id, index);
    for (const id of message.resultIds) answeredAt.set(id, index);
  });
  const valid: boolean[] = [];
  let resultsInside = true;
  let lastAnswer = -1;
  for (let to = from; to <= last; to++) {
    valid.push(resultsInside && lastAnswer < to);
    const message = messages[to];
    if (!message) break;
    for (const id of message.resultIds) {
      const call = calledAt.get(id);
      if (call === undefined || call < from) resultsInside = false;
    }
    for (const id of message.callIds) lastAnswer = Math.max(lastAnswer, answeredAt.get(id) ?? -1);
  }
  return valid;
}
