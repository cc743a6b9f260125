import { isRecord, type Shape } from "../conversation.js";

/**
 * Whether a response the client got is well formed: a JSON body parses; an event stream is a
 * sequence of `event:`/`data:` blocks whose data parse, that opens and closes as its API does
 * (Anthropic: `message_start` … `message_stop`, content blocks started and stopped in pairs;
 * Responses: `response.created` … `response.completed`). Undefined when it is; else what is wrong.
 */

export interface StreamEvent {
  readonly event: string | undefined;
  readonly data: string;
}

/** The events of an SSE text (blocks separated by a blank line; `data:` lines joined). */
export function sseEvents(text: string): StreamEvent[] {
  const events: StreamEvent[] = [];
  for (const block of text.replace(/\r\n/g, "\n").split("\n\n")) {
    if (block.trim() === "") continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    events.push({ event, data: data.join("\n") });
  }
  return events;
}

function parsed(data: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function anthropicProblem(
  types: readonly string[],
  values: readonly Record<string, unknown>[],
): string | undefined {
  if (types[0] !== "message_start") return `opens with ${types[0] ?? "nothing"}`;
  if (types.at(-1) !== "message_stop") return `ends with ${types.at(-1) ?? "nothing"}`;
  const open = new Set<unknown>();
  for (const value of values) {
    if (value.type === "content_block_start") open.add(value.index);
    if (value.type === "content_block_stop" && !open.delete(value.index)) {
      return `content block ${String(value.index)} stopped without a start`;
    }
  }
  return open.size === 0 ? undefined : `content blocks left open: ${[...open].join(", ")}`;
}

function responsesProblem(types: readonly string[]): string | undefined {
  if (types[0] !== "response.created") return `opens with ${types[0] ?? "nothing"}`;
  const last = types.at(-1);
  if (last !== "response.completed") return `ends with ${last ?? "nothing"}`;
  return undefined;
}

export function responseProblem(
  shape: Shape,
  contentType: string,
  body: string,
): string | undefined {
  if (!contentType.includes("text/event-stream")) {
    return parsed(body) === undefined ? "the JSON body does not parse" : undefined;
  }
  const events = sseEvents(body);
  const values: Record<string, unknown>[] = [];
  for (const [index, event] of events.entries()) {
    if (event.data === "[DONE]") continue;
    const value = parsed(event.data);
    if (value === undefined)
      return `event ${index + 1} (${event.event ?? "no name"}): data does not parse`;
    if (event.event !== undefined && value.type !== undefined && value.type !== event.event) {
      return `event ${index + 1}: named ${event.event} but of type ${String(value.type)}`;
    }
    values.push(value);
  }
  const types = values.map((value) => String(value.type));
  return shape === "anthropic" ? anthropicProblem(types, values) : responsesProblem(types);
}
