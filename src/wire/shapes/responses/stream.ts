import type { SseEvent } from "../../../expand/sse.js";
import { EXPAND_TOOL_NAME } from "../../../expand/tool.js";
import type { ResponseTurn } from "../../../expand/turn.js";
import { TypedEventStream } from "../../../expand/typed-stream.js";
import { isRecord } from "../../is-record.js";
import { memberText, outputItemTexts, responseTurn } from "./response.js";

/** One output item as an `response.output_item.done` event carried it. */
interface DoneItem {
  readonly value: Record<string, unknown>;
  readonly text: string;
}

/**
 * Responses API events (`response.created` … `response.output_item.added` …
 * `response.completed`). The opening is decided by the first output item that is a call (its
 * name arrives with `response.output_item.added`) or by the first visible text; reasoning items
 * decide nothing. The turn is the completed response's output, item by item as written.
 */
export class ResponsesStream extends TypedEventStream {
  /** The `response` member of `response.completed`: its value and its text. */
  #completed: { readonly value: Record<string, unknown>; readonly text: string } | undefined;
  readonly #done = new Map<number, DoneItem>();

  protected override onEvent(type: string, data: Record<string, unknown>, event: SseEvent): void {
    switch (type) {
      case "response.output_item.added":
        this.#added(data.item);
        return;
      case "response.output_item.done":
        this.#itemDone(data, event.data);
        return;
      case "response.output_text.delta":
        if (typeof data.delta === "string" && data.delta.trim() !== "") this.decide("through");
        return;
      case "response.refusal.delta":
        this.decide("through");
        return;
      case "response.completed":
        this.#complete(data, event.data);
        return;
      case "error":
      case "response.failed":
      case "response.incomplete":
        this.fail();
        return;
      default:
        return;
    }
  }

  finish(): ResponseTurn | undefined {
    if (this.failed || this.#completed === undefined) return undefined;
    const { value, text } = this.#completed;
    const output = Array.isArray(value.output) ? value.output : [];
    if (output.length > 0) {
      const texts = outputItemTexts(text);
      return texts && responseTurn(output, texts, value.id);
    }
    // A server that leaves the completed response's output empty: the items as each was done.
    const done: DoneItem[] = [];
    for (let index = 0; index < this.#done.size; index++) {
      const item = this.#done.get(index);
      if (item === undefined) return undefined;
      done.push(item);
    }
    return responseTurn(
      done.map((item) => item.value),
      done.map((item) => item.text),
      value.id,
    );
  }

  #added(item: unknown): void {
    if (!isRecord(item)) {
      this.fail();
      return;
    }
    if (item.type === "function_call") {
      this.decide(item.name === EXPAND_TOOL_NAME ? "expand" : "through");
    } else if (item.type !== "reasoning" && item.type !== "message") {
      this.decide("through");
    }
  }

  #itemDone(data: Record<string, unknown>, raw: string): void {
    const text = memberText(raw, "item");
    if (typeof data.output_index !== "number" || !isRecord(data.item) || text === undefined) {
      this.fail();
      return;
    }
    this.#done.set(data.output_index, { value: data.item, text });
  }

  #complete(data: Record<string, unknown>, raw: string): void {
    const text = memberText(raw, "response");
    if (!isRecord(data.response) || text === undefined) {
      this.fail();
      return;
    }
    this.#completed = { value: data.response, text };
    this.decide("through");
  }
}
