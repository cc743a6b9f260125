import { isRecord } from "../conversation.js";
import type { Turn } from "../turns.js";
import { cacheControlFree } from "./prefix.js";

/**
 * `POST /v1/messages/count_tokens` (§2): the service compacts the body exactly as
 * `/v1/messages` would send it at that point of the session and forwards it, so the count is
 * what the model will read. Checked per call: it reached the model; the client got the model's
 * count; each message it shares with the next `/v1/messages` request was counted as that request
 * forwarded it, and a message holding no tool output was counted as the client sent it.
 * (Claude Code counts the files it read, one per call, right after its own compaction.)
 */

export function countTokensProblems(count: Turn, later: readonly Turn[]): string[] {
  const id = count.exchange.id;
  const first = count.rounds[0];
  if (count.exchange.status !== 200 || first?.counted === undefined) {
    return [
      `${id}: answered ${count.exchange.status}${first === undefined ? ", never reached the model" : ""}`,
    ];
  }
  const problems: string[] = [];
  let answered: unknown;
  try {
    answered = JSON.parse(count.exchange.responseBody);
  } catch {
    answered = undefined;
  }
  const tokens = isRecord(answered) ? answered.input_tokens : undefined;
  if (tokens !== first.counted)
    problems.push(`${id}: the model counted ${first.counted}, the client got ${String(tokens)}`);
  const { client, forwarded } = count;
  if (client === undefined || forwarded === undefined)
    return [...problems, `${id}: body unreadable`];
  const next = later.find(
    (turn) =>
      turn.route === "messages" && turn.client !== undefined && turn.forwarded !== undefined,
  );
  const nextItems = new Map<string, string>();
  next?.client?.items.forEach((item, index) => {
    const sent = next.forwarded?.items[index]?.raw;
    if (sent !== undefined) nextItems.set(cacheControlFree(item.raw), sent);
  });
  client.items.forEach((item, index) => {
    const counted = forwarded.items[index]?.raw;
    const asSent = nextItems.get(cacheControlFree(item.raw));
    if (asSent !== undefined) {
      if (counted !== undefined && cacheControlFree(counted) !== cacheControlFree(asSent)) {
        problems.push(
          `${id}: message ${index} counted otherwise than ${next?.exchange.id} sent it`,
        );
      }
      return;
    }
    const holdsOutput = client.outputs.some((output) => output.item === index);
    if (!holdsOutput && counted !== item.raw)
      problems.push(`${id}: message ${index} (no tool output) changed`);
  });
  return problems;
}
