import { eventJson, type SseEvent } from "../../../expand/sse.js";
import type { StreamAggregator, StreamOpening } from "../../../expand/stream-aggregator.js";
import { EXPAND_TOOL_NAME } from "../../../expand/tool.js";
import { type AssistantTurn, parseArguments, type ToolUse } from "../../../expand/turn.js";
import { isRecord } from "../../is-record.js";

interface PendingCall {
  id: string;
  name: string;
  arguments: string;
}

/** Chat-completions chunks (`data: {choices:[{delta}]}` … `data: [DONE]`). */
export class OpenAIStream implements StreamAggregator {
  opening: StreamOpening | undefined;
  #failed = false;
  #finished = false;
  #content = "";
  readonly #calls: PendingCall[] = [];

  push(event: SseEvent): void {
    if (this.#failed) return;
    if (event.data === "[DONE]") {
      this.#decide("through");
      return;
    }
    const chunk = eventJson(event);
    if (!isRecord(chunk) || chunk.error !== undefined) {
      this.#fail();
      return;
    }
    const { choices } = chunk;
    if (choices === undefined) return;
    if (!Array.isArray(choices)) {
      this.#fail();
      return;
    }
    for (const choice of choices) {
      if (!isRecord(choice) || (choice.index !== undefined && choice.index !== 0)) {
        this.#fail();
        return;
      }
      if (isRecord(choice.delta)) this.#delta(choice.delta);
      if (this.#failed) return;
      if (typeof choice.finish_reason === "string") {
        this.#finished = true;
        this.#decide("through");
      }
    }
  }

  finish(): AssistantTurn | undefined {
    // A stream that ended before its finish_reason was cut off.
    if (this.#failed || !this.#finished) return undefined;
    const toolUses: ToolUse[] = [];
    for (const call of this.#calls) {
      if (call === undefined || call.id === "" || call.name === "") return undefined;
      toolUses.push({ callId: call.id, name: call.name, input: parseArguments(call.arguments) });
    }
    const message: Record<string, unknown> = {
      role: "assistant",
      // A turn of nothing but tool calls carries null content, as in a non-streaming response.
      content: this.#content === "" ? null : this.#content,
    };
    if (toolUses.length > 0) {
      message.tool_calls = this.#calls.map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    return { message, toolUses };
  }

  #delta(delta: Record<string, unknown>): void {
    const { content, refusal, tool_calls: toolCalls } = delta;
    if (typeof content === "string") {
      this.#content += content;
      if (content.trim() !== "") this.#decide("through");
    }
    if (typeof refusal === "string" && refusal !== "") this.#decide("through");
    if (toolCalls === undefined || toolCalls === null) return;
    if (!Array.isArray(toolCalls)) {
      this.#fail();
      return;
    }
    for (const part of toolCalls) this.#toolCall(part);
  }

  #toolCall(part: unknown): void {
    if (!isRecord(part) || typeof part.index !== "number") {
      this.#fail();
      return;
    }
    let call = this.#calls[part.index];
    if (call === undefined) {
      if (part.index !== this.#calls.length) {
        this.#fail();
        return;
      }
      call = { id: "", name: "", arguments: "" };
      this.#calls.push(call);
    }
    if (typeof part.id === "string") call.id = part.id;
    const fn = part.function;
    if (isRecord(fn)) {
      if (typeof fn.name === "string") call.name += fn.name;
      if (typeof fn.arguments === "string") call.arguments += fn.arguments;
    }
    if (call.name === EXPAND_TOOL_NAME) this.#decide("expand");
    else if (!EXPAND_TOOL_NAME.startsWith(call.name)) this.#decide("through");
  }

  #decide(opening: StreamOpening): void {
    this.opening ??= opening;
  }

  #fail(): void {
    this.#failed = true;
    this.#decide("through");
  }
}
