import { EXPAND_TOOL } from "../model/plan.js";
import type { Turn } from "../turns.js";
import { markerIdsIn, type OutputVerdict, outputFates } from "./outputs.js";
import { comparePrefix, type PrefixComparison, sharedItems } from "./prefix.js";
import { messageTokens } from "./tokens.js";

/**
 * Everything the table and the promises read of one model-route request: its predecessor in
 * the conversation and what changed since, the fate of each tool output, the markers and the
 * expand tool in what was forwarded, and the message tokens on both sides.
 */

export interface TurnAnalysis {
  readonly turn: Turn;
  readonly predecessor: Turn | undefined;
  readonly prefix: PrefixComparison | undefined;
  readonly outputs: readonly OutputVerdict[];
  readonly markerIds: readonly string[];
  readonly expandOffered: boolean;
  readonly clientTokens: number;
  readonly forwardedTokens: number;
  /** The service told the client it treated the request as cold (a change is then announced). */
  readonly announcedCold: boolean;
}

const CONVERSATION_KINDS = new Set(["turn", "summary", "compaction_trigger"]);

/** The earlier request of the same conversation that shares the most leading items with it. */
export function predecessorOf(turn: Turn, earlier: readonly Turn[]): Turn | undefined {
  const client = turn.client;
  if (client === undefined) return undefined;
  let best: Turn | undefined;
  let bestShared = 0;
  for (const candidate of earlier) {
    if (candidate.shape !== turn.shape || candidate.client === undefined) continue;
    if (candidate.forwarded === undefined || !CONVERSATION_KINDS.has(candidate.kind)) continue;
    const shared = sharedItems(candidate.client, client);
    if (shared > 0 && shared >= bestShared) {
      best = candidate;
      bestShared = shared;
    }
  }
  return best;
}

/** Analyses `turns` (in the order they happened), each against the ones before it. */
export function analyseTurns(turns: readonly Turn[]): TurnAnalysis[] {
  const seen: Turn[] = [];
  const analyses: TurnAnalysis[] = [];
  for (const turn of turns) {
    const { client, forwarded } = turn;
    if (turn.index === 0 || client === undefined || forwarded === undefined) continue;
    const predecessor = CONVERSATION_KINDS.has(turn.kind) ? predecessorOf(turn, seen) : undefined;
    const prefix =
      predecessor?.client !== undefined && predecessor.forwarded !== undefined
        ? comparePrefix(
            { client: predecessor.client, forwarded: predecessor.forwarded },
            { client, forwarded },
          )
        : undefined;
    const markerIds = [...new Set(forwarded.outputs.flatMap((output) => markerIdsIn(output.text)))];
    analyses.push({
      turn,
      predecessor,
      prefix,
      outputs: outputFates(client, forwarded),
      markerIds,
      expandOffered: forwarded.toolNames.includes(EXPAND_TOOL),
      clientTokens: messageTokens(client),
      forwardedTokens: messageTokens(forwarded),
      announcedCold: turn.cache === "cold",
    });
    seen.push(turn);
  }
  return analyses;
}

/** Changes the service made to already-sent items (or the head) that the response did not announce. */
export function unannouncedChanges(analysis: TurnAnalysis): number {
  const prefix = analysis.prefix;
  if (prefix === undefined || analysis.announcedCold) return 0;
  return prefix.serviceChanges.length + (prefix.headChanged ? 1 : 0);
}

export function announcedChanges(analysis: TurnAnalysis): number {
  const prefix = analysis.prefix;
  if (prefix === undefined || !analysis.announcedCold) return 0;
  return prefix.serviceChanges.length + (prefix.headChanged ? 1 : 0);
}
