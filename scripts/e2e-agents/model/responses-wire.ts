/**
 * The scripted model's OpenAI Responses answers, streamed as the API does: `response.created`,
 * per output item `response.output_item.added`, its deltas and `response.output_item.done`,
 * then `response.completed` with every item and the usage. Items: `reasoning` with
 * `encrypted_content`, assistant `message`, `function_call`, `custom_tool_call` (Codex's
 * freeform `apply_patch`) and `compaction`.
 */

export type ResponsesItem =
  | { readonly type: "reasoning"; readonly id: string; readonly encrypted_content: string }
  | { readonly type: "message"; readonly id: string; readonly text: string }
  | {
      readonly type: "function_call";
      readonly id: string;
      readonly call_id: string;
      readonly name: string;
      readonly arguments: string;
    }
  | {
      readonly type: "custom_tool_call";
      readonly id: string;
      readonly call_id: string;
      readonly name: string;
      readonly input: string;
    }
  | { readonly type: "compaction"; readonly id: string; readonly encrypted_content: string };

export interface ResponsesUsage {
  readonly input_tokens: number;
  readonly cached_tokens: number;
  readonly output_tokens: number;
}

export interface ResponsesReply {
  readonly id: string;
  readonly model: string;
  readonly createdAt: number;
  readonly items: readonly ResponsesItem[];
  readonly usage: ResponsesUsage;
}

/** An item as it stands in `response.output_item.done` and `response.completed`. */
export function doneItem(item: ResponsesItem): Record<string, unknown> {
  switch (item.type) {
    case "reasoning":
      return { ...item, summary: [] };
    case "message":
      return {
        id: item.id,
        type: "message",
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", annotations: [], text: item.text }],
      };
    case "function_call":
    case "custom_tool_call":
      return { ...item, status: "completed" };
    case "compaction":
      return { ...item };
  }
}

function addedItem(item: ResponsesItem): Record<string, unknown> {
  switch (item.type) {
    case "message":
      return { ...doneItem(item), status: "in_progress", content: [] };
    case "function_call":
      return { ...item, arguments: "", status: "in_progress" };
    case "custom_tool_call":
      return { ...item, input: "", status: "in_progress" };
    default:
      return doneItem(item);
  }
}

function deltaEvents(item: ResponsesItem, output_index: number): [string, object][] {
  const at = { item_id: item.id, output_index };
  switch (item.type) {
    case "message": {
      const part = { type: "output_text", annotations: [], text: "" };
      return [
        ["response.content_part.added", { ...at, content_index: 0, part }],
        ["response.output_text.delta", { ...at, content_index: 0, delta: item.text }],
        ["response.output_text.done", { ...at, content_index: 0, text: item.text }],
        [
          "response.content_part.done",
          { ...at, content_index: 0, part: { ...part, text: item.text } },
        ],
      ];
    }
    case "function_call":
      return [
        ["response.function_call_arguments.delta", { ...at, delta: item.arguments }],
        ["response.function_call_arguments.done", { ...at, arguments: item.arguments }],
      ];
    case "custom_tool_call":
      return [
        ["response.custom_tool_call_input.delta", { ...at, delta: item.input }],
        ["response.custom_tool_call_input.done", { ...at, input: item.input }],
      ];
    default:
      return [];
  }
}

function responseObject(reply: ResponsesReply, completed: boolean): Record<string, unknown> {
  const { usage } = reply;
  return {
    id: reply.id,
    object: "response",
    created_at: reply.createdAt,
    status: completed ? "completed" : "in_progress",
    model: reply.model,
    output: completed ? reply.items.map(doneItem) : [],
    usage: completed
      ? {
          input_tokens: usage.input_tokens,
          input_tokens_details: { cached_tokens: usage.cached_tokens },
          output_tokens: usage.output_tokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input_tokens + usage.output_tokens,
        }
      : null,
  };
}

/** The reply as the API streams it. */
export function responsesStream(reply: ResponsesReply): string {
  const events: [string, object][] = [
    ["response.created", { response: responseObject(reply, false) }],
    ["response.in_progress", { response: responseObject(reply, false) }],
  ];
  reply.items.forEach((item, output_index) => {
    events.push(["response.output_item.added", { output_index, item: addedItem(item) }]);
    events.push(...deltaEvents(item, output_index));
    events.push(["response.output_item.done", { output_index, item: doneItem(item) }]);
  });
  events.push(["response.completed", { response: responseObject(reply, true) }]);
  return events
    .map(
      ([type, data], sequence_number) =>
        `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number, ...data })}\n\n`,
    )
    .join("");
}

/** The reply as one JSON body (a request without `stream: true`). */
export function responsesJson(reply: ResponsesReply): string {
  return JSON.stringify(responseObject(reply, true));
}
