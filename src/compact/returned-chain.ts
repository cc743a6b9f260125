import type { ChainMemo } from "../session/chain.js";
import { applyEdits } from "../wire/edit.js";
import type { History, ParsedRequest, Written } from "./turn.js";

/**
 * The returned conversation id of each received message (session/records.ts): the chain id of
 * the message it became in the returned body (a summary stands where its span began). A
 * message no edit touched keeps its received digest; an edited one is hashed as returned.
 */
export function returnedConversation(
  chains: ChainMemo,
  request: ParsedRequest,
  history: History,
  written: Written,
): (message: number) => string | undefined {
  const { scan, text } = request;
  const replaced = written.summary;
  // The returned messages, undefined where one is as received.
  const raws: (string | undefined)[] = [];
  const known: string[] = [];
  for (const [index, span] of scan.messages.entries()) {
    if (replaced && index >= replaced.from && index < replaced.to) {
      if (index === replaced.from) raws.push(replaced.raw);
      continue;
    }
    const edits = written.messageEdits.get(index);
    known[raws.length] = history.digests[index] as string;
    if (edits === undefined) {
      raws.push(undefined);
      continue;
    }
    const shifted = edits.map((edit) => ({
      span: { start: edit.span.start - span.start, end: edit.span.end - span.start },
      raw: edit.raw,
    }));
    raws.push(applyEdits(text.slice(span.start, span.end), shifted));
  }
  const { ids: chain } = chains.chain(
    request.session,
    "returned",
    raws,
    (index) => JSON.parse(raws[index] as string),
    { known },
  );
  return (message) => {
    if (!replaced || message < replaced.from) return chain[message];
    if (message < replaced.to) return chain[replaced.from];
    return chain[message - (replaced.to - replaced.from) + 1];
  };
}
