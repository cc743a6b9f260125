import type { RequestView } from "../conversation.js";
import type { UpstreamRequest } from "../records.js";
import { anthropicJson, anthropicStream } from "./anthropic-wire.js";
import type { Plan } from "./plan.js";
import type { PromptUsage } from "./prompt-cache.js";
import { anthropicBlocks, type RenderContext, responsesItems } from "./render.js";
import { responsesJson, responsesStream } from "./responses-wire.js";

/**
 * A plan as the body the scripted model answers with, in the request's own shape (streamed when
 * it asked for a stream), and the opaque strings in it that the client must send back as they
 * are: thinking signatures, encrypted reasoning and compaction contents, apply_patch patches.
 */

export interface WireReply {
  readonly text: string;
  readonly stream: boolean;
  readonly emitted: string[];
}

export interface ReplyContext extends RenderContext {
  /** The request's number, which names the reply. */
  readonly seq: number;
  /** The id of the `context_guru_expand` call, when the plan is one. */
  readonly expandCall: string;
  readonly usage: PromptUsage;
}

/** What a plan's request is recorded as. */
export function kindOfPlan(plan: Plan): UpstreamRequest["kind"] {
  switch (plan.kind) {
    case "compaction":
      return "compaction_trigger";
    case "move":
    case "expand":
    case "done":
      return "turn";
    default:
      return plan.kind;
  }
}

const OUTPUT_TOKENS = 40;

export function wireReply(view: RequestView, plan: Plan, context: ReplyContext): WireReply {
  const model = typeof view.body.model === "string" ? view.body.model : "scripted";
  const stream = view.body.stream === true;
  const id = `e2e${String(context.seq).padStart(4, "0")}`;
  const { usage } = context;
  if (view.shape === "anthropic") {
    const blocks = anthropicBlocks(plan, context, context.expandCall);
    const message = {
      id: `msg_${id}`,
      model,
      blocks,
      usage: {
        input_tokens: usage.promptTokens - usage.cachedTokens,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: usage.cachedTokens,
        output_tokens: OUTPUT_TOKENS,
      },
    };
    return {
      text: stream ? anthropicStream(message) : anthropicJson(message),
      stream,
      emitted: blocks.flatMap((block) => (block.type === "thinking" ? [block.signature] : [])),
    };
  }
  const items = responsesItems(plan, context, context.expandCall);
  const reply = {
    id: `resp_${id}`,
    model,
    createdAt: 1_773_478_800 + context.seq,
    items,
    usage: {
      input_tokens: usage.promptTokens,
      cached_tokens: usage.cachedTokens,
      output_tokens: OUTPUT_TOKENS,
    },
  };
  return {
    text: stream ? responsesStream(reply) : responsesJson(reply),
    stream,
    emitted: items.flatMap((item) => {
      if (item.type === "reasoning" || item.type === "compaction") return [item.encrypted_content];
      return item.type === "custom_tool_call" ? [item.input] : [];
    }),
  };
}
