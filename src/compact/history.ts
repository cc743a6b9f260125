import { readDeploymentLifetime, withDeploymentLifetime } from "../cache/deployment-lifetime.js";
import { isAgentCompaction } from "../session/agent-compaction.js";
import { printsOf, standing } from "../session/divergence.js";
import { namesConversation } from "../session/key.js";
import { EMPTY_LEDGER } from "../session/ledger.js";
import { conversationRoot } from "../session/root.js";
import type { Slot } from "../wire/types.js";
import {
  type CompactContext,
  type FrozenSlots,
  type History,
  NOTHING_FROZEN,
  type ParsedRequest,
} from "./turn.js";

/**
 * The second step: where the request stands in its session's history (§4a). The ledger (and the
 * deployment's learned cache lifetime beside it, in the same round trip; an unreadable ledger is
 * an unknown history: warm, nothing replayed); the chain of its messages from the prompt's root;
 * the head it stands on and the decisions it gives back; whether it diverged, is a session's
 * first request, or is the agent's own compaction.
 */
export async function readHistory(
  context: CompactContext,
  request: ParsedRequest,
): Promise<History> {
  const now = context.clock();
  const { shape, text, scan, body, messages, transcript, options } = request;
  const [stored, deployment] = await Promise.all([
    context.store.ledger(request.session).catch(() => EMPTY_LEDGER),
    readDeploymentLifetime(context.store),
  ]);
  const ledger = withDeploymentLifetime(stored, deployment);
  const root = conversationRoot(shape, text, scan, body);
  // The messages re-sent from the session's last request keep the digests they had there.
  const shared = request.recalled?.shared ?? 0;
  const known = request.recalled?.prior.digests ?? [];
  const { digests, ids: chain } = context.memos.chains.chain(
    request.session,
    "received",
    scan.messages.map((span, index) =>
      index < shared ? undefined : text.slice(span.start, span.end),
    ),
    (index) => messages[index],
    { known, bodyChars: text.length, root },
  );
  if (request.readKey !== undefined) {
    context.memos.reads.remember(request.readKey, {
      text,
      shape: shape.name,
      conversation: shape.scan.conversation,
      body,
      scan,
      read: request.read,
      digests,
    });
  }
  const agentCompaction = options.agentCompaction === true || isAgentCompaction(shape, messages);
  const stands = standing(ledger, root, chain, printsOf(digests), {
    anyRoot: agentCompaction,
    named: namesConversation(body, options.session),
  });
  let { head, through } = stands;
  let frozen: FrozenSlots = NOTHING_FROZEN;
  const { slots } = transcript;
  if (head && agentCompaction) {
    // The agent's compaction sends its conversation again with the request for a summary,
    // which Claude Code appends to the last message: every slot the head returned goes as it
    // was returned, that message's too.
    frozen = {
      output: head.outputs.slice(0, slots.output.length),
      call: head.calls.slice(0, slots.call.length),
    };
  } else if (head) {
    // A head describes these messages only if it saw the same outputs in them (same shape read).
    const outputs = slotsBefore(slots.output, through);
    if (through === head.messages && outputs !== head.outputs.length) head = undefined;
    else {
      frozen = {
        output: head.outputs.slice(0, outputs),
        call: head.calls.slice(0, slotsBefore(slots.call, through)),
      };
    }
  }
  if (head === undefined) through = 0;
  const diverged = stands.diverged && (head !== undefined || through === 0);
  return {
    ledger,
    root,
    digests,
    chain,
    head,
    frozen,
    through,
    diverged,
    // A conversation that went on from messages already sent (the history after the agent's
    // own compaction) diverged, whether or not it holds an assistant turn.
    first: !shape.conversation.hasAssistantTurn(body, messages) && !(diverged && through > 0),
    agentCompaction,
    now,
  };
}

/** Slots held by the first `messages` messages. */
function slotsBefore(slots: readonly Slot[], messages: number): number {
  let count = 0;
  for (const slot of slots) if (slot.messageIndex < messages) count++;
  return count;
}
