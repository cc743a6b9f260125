import type { CallSpec } from "./model-replies.js";
import type { ScriptedEvent, ScriptedReply } from "./scripted-upstream.js";

/** An output item of a scripted Responses answer. */
export type ItemSpec =
  | { readonly type: "text"; readonly text: string }
  /** A reasoning item written exactly as `raw` (JSON text) on the wire. */
  | { readonly type: "reasoning"; readonly raw: string }
  | ({ readonly type: "call" } & CallSpec)
  /** A call of a built-in tool (`web_search_call`, …). */
  | { readonly type: "builtin"; readonly item: Record<string, unknown> };

/**
 * A reasoning item whose `encrypted_content` is written with an escape (`\u002f` for `/`): a
 * proxy that re-serialised it would send `/` instead.
 */
export const REASONING_RAW =
  '{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAB\\u002fenc+rypted=="}';

/** The usage a scripted response reports: prompt tokens and those served from cache. */
export interface ResponsesUsage {
  readonly input: number;
  readonly cached: number;
}

const DEFAULT_USAGE: ResponsesUsage = { input: 10, cached: 0 };

/** The placeholder a raw item stands behind until the JSON text is written. */
const rawToken = (index: number) => `__raw_item_${index}__`;

function outputItem(spec: ItemSpec, index: number): unknown {
  switch (spec.type) {
    case "text":
      return {
        type: "message",
        id: `msg_${index}`,
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: spec.text, annotations: [] }],
      };
    case "reasoning":
      return rawToken(index);
    case "call":
      return {
        type: "function_call",
        id: `fc_${index}`,
        call_id: spec.id,
        name: spec.name,
        arguments: JSON.stringify(spec.input),
        status: "completed",
      };
    default:
      return spec.item;
  }
}

/** JSON text of `value` with each raw item's placeholder replaced by its text. */
function withRaw(value: unknown, specs: readonly ItemSpec[]): string {
  let text = JSON.stringify(value);
  specs.forEach((spec, index) => {
    if (spec.type === "reasoning") text = text.replace(`"${rawToken(index)}"`, spec.raw);
  });
  return text;
}

function response(
  id: string,
  status: string,
  output: unknown[],
  usage: ResponsesUsage | null,
): Record<string, unknown> {
  return {
    id,
    object: "response",
    created_at: 1_700_000_000,
    status,
    model: "gpt-test",
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    usage:
      usage === null
        ? null
        : {
            input_tokens: usage.input,
            input_tokens_details: { cached_tokens: usage.cached },
            output_tokens: 5,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage.input + 5,
          },
  };
}

/** A non-streaming Responses body (`object: "response"`). */
export function responsesJson(
  specs: readonly ItemSpec[],
  options: { readonly id?: string; readonly usage?: ResponsesUsage } = {},
): ScriptedReply {
  const output = specs.map(outputItem);
  const body = response(
    options.id ?? "resp_1",
    "completed",
    output,
    options.usage ?? DEFAULT_USAGE,
  );
  return { body: withRaw(body, specs), headers: { "content-type": "application/json" } };
}

/**
 * A Responses event stream: `response.created`, each item added, its text or arguments in two
 * deltas, the item done, then `response.completed` with the whole output and usage.
 */
export function responsesEvents(
  specs: readonly ItemSpec[],
  options: { readonly id?: string; readonly usage?: ResponsesUsage } = {},
): ScriptedEvent[] {
  const id = options.id ?? "resp_1";
  let sequence = 0;
  const event = (type: string, data: Record<string, unknown>, raw = false): ScriptedEvent => {
    const value = { type, sequence_number: sequence++, ...data };
    return { event: type, data: raw ? withRaw(value, specs) : value };
  };
  const events = [
    event("response.created", { response: response(id, "in_progress", [], null) }),
    event("response.in_progress", { response: response(id, "in_progress", [], null) }),
  ];
  specs.forEach((spec, index) => {
    const done = outputItem(spec, index);
    const item = (value: unknown) => ({ output_index: index, item: value });
    if (spec.type === "text") {
      const opened = { ...(done as Record<string, unknown>), status: "in_progress", content: [] };
      events.push(event("response.output_item.added", item(opened)));
      const itemId = `msg_${index}`;
      for (const delta of halves(spec.text)) {
        events.push(
          event("response.output_text.delta", {
            item_id: itemId,
            output_index: index,
            content_index: 0,
            delta,
            logprobs: [],
          }),
        );
      }
    } else if (spec.type === "call") {
      const opened = { ...(done as Record<string, unknown>), status: "in_progress", arguments: "" };
      events.push(event("response.output_item.added", item(opened)));
      for (const delta of halves(JSON.stringify(spec.input))) {
        events.push(
          event("response.function_call_arguments.delta", {
            item_id: `fc_${index}`,
            output_index: index,
            delta,
          }),
        );
      }
    } else {
      events.push(event("response.output_item.added", item(done), true));
    }
    events.push(event("response.output_item.done", item(done), true));
  });
  const output = specs.map(outputItem);
  const completed = response(id, "completed", output, options.usage ?? DEFAULT_USAGE);
  events.push(event("response.completed", { response: completed }, true));
  return events;
}

/** A scripted Responses answer, as a JSON body or as an event stream. */
export function responsesReply(
  streaming: boolean,
  specs: readonly ItemSpec[],
  options: { readonly id?: string; readonly usage?: ResponsesUsage } = {},
): ScriptedReply {
  return streaming ? { sse: responsesEvents(specs, options) } : responsesJson(specs, options);
}

/** The function_call item the scripted model writes for `call` at output position `index`. */
export function functionCallItem(call: CallSpec, index: number): Record<string, unknown> {
  return outputItem({ type: "call", ...call }, index) as Record<string, unknown>;
}

function halves(text: string): string[] {
  const half = Math.floor(text.length / 2);
  return half === 0 ? [text] : [text.slice(0, half), text.slice(half)];
}
