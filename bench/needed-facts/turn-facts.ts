import type { ComponentName } from "../../src/config/schema.js";
import { markerIds } from "../../src/expand/markers.js";
import type { Provider } from "../../src/wire/types.js";
import { type BodyReader, type BodyReading, nextAction } from "./body-reading.js";
import { type ClassifiedFact, classifyFacts } from "./classify.js";
import { neededFacts } from "./needed.js";
import { type Prices, recoveryCost } from "./recovery.js";

/** What the service holds for one replayed session, as the bench asks it. */
export interface SessionStash {
  /** The original a full marker id stands for, when the store gives it to this session. */
  original(id: string): Promise<string | undefined>;
  /** The ledger's decision per tool output of the request that had `messages` messages. */
  decisions(messages: number): Promise<readonly (readonly ComponentName[])[] | undefined>;
}

export interface TurnFactsInput {
  readonly provider: Provider;
  /** The turn's body as the agent sent it, the next turn's, and what the service returned. */
  readonly received: string;
  readonly next: string;
  readonly returned: string;
  /** Prompt tokens of the returned body as the model reads it. */
  readonly promptTokens: number;
  readonly prices: Prices;
  readonly stash: SessionStash;
  readonly reader: BodyReader;
  readonly tokens: (text: string) => number;
}

export interface TurnFacts {
  readonly facts: readonly ClassifiedFact[];
  /** Outputs of the turn's body as received (for how far back a holder was). */
  readonly outputs: number;
  /** What recovering its hidden facts costs, in the session's own pricing. */
  readonly recovery: number;
}

/** The needed facts of one turn, where each stands in the returned body, and their recovery. */
export async function turnFacts(input: TurnFactsInput): Promise<TurnFacts> {
  const { reader, provider } = input;
  const received = reader.read(provider, input.received);
  const facts = neededFacts(received, nextAction(received, reader.read(provider, input.next)));
  if (facts.length === 0) return { facts: [], outputs: received.outputs, recovery: 0 };
  const reading = reader.read(provider, input.returned);
  const classified = classifyFacts(facts, received, {
    reading,
    originals: await originalsBehind(reading, input.stash, reader),
    decisions: await input.stash.decisions(reading.messages),
  });
  const hidden = new Map<string, string>();
  for (const item of classified) {
    if (item.state === "visible") continue;
    hidden.set(`${item.holder.kind}:${item.holder.output}`, item.holder.text);
  }
  const recovery = recoveryCost(
    input.promptTokens,
    [...hidden.values()].map((text) => input.tokens(text)),
    input.prices,
  );
  return { facts: classified, outputs: received.outputs, recovery };
}

/** The originals of the full markers a returned body carries, by id. */
async function originalsBehind(
  reading: BodyReading,
  stash: SessionStash,
  reader: BodyReader,
): Promise<Map<string, string>> {
  const ids = new Set<string>();
  for (const text of reading.given) for (const id of markerIds(text)) ids.add(id);
  for (const source of reading.sources) for (const id of markerIds(source.text)) ids.add(id);
  const originals = new Map<string, string>();
  for (const id of ids) {
    const original = await stash.original(id);
    if (original !== undefined) originals.set(id, reader.searchable(original));
  }
  return originals;
}
