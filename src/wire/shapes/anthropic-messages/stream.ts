import { EXPAND_TOOL_NAME } from "../../../expand/tool.js";
import { type AssistantTurn, parseArguments, type ToolUse } from "../../../expand/turn.js";
import { TypedEventStream } from "../../../expand/typed-stream.js";
import { isRecord } from "../../is-record.js";

type Block = Record<string, unknown> & { type: string };

/** Block types a continuation can carry back; any other type keeps the response as it is. */
const KNOWN = new Set(["text", "thinking", "redacted_thinking", "tool_use"]);

/** Messages stream (`message_start`, `content_block_*`, `message_delta`, `message_stop`). */
export class AnthropicStream extends TypedEventStream {
  #stopped = false;
  readonly #blocks: Block[] = [];
  readonly #json = new Map<number, string>();
  /** Expand calls whose input JSON did not parse: answered with the placeholder, not passed on. */
  readonly #malformed = new Set<number>();

  protected override onEvent(type: string, data: Record<string, unknown>): void {
    switch (type) {
      case "content_block_start": {
        this.#start(data);
        return;
      }
      case "content_block_delta": {
        this.#delta(data);
        return;
      }
      case "content_block_stop": {
        this.#stop(data);
        return;
      }
      case "message_delta": {
        this.decide("through");
        return;
      }
      case "message_stop":
        this.#stopped = true;
        {
          this.decide("through");
          return;
        }
      case "message_start":
      case "ping":
        return;
      default: {
        this.fail();
        return;
      }
    }
  }

  finish(): AssistantTurn | undefined {
    if (this.failed || !this.#stopped || this.#json.size > 0) return undefined;
    const toolUses: ToolUse[] = [];
    for (const [index, block] of this.#blocks.entries()) {
      if (block === undefined) return undefined;
      if (block.type !== "tool_use") continue;
      if (typeof block.id !== "string" || typeof block.name !== "string") return undefined;
      if (block.input === undefined) return undefined;
      const input = this.#malformed.has(index) ? undefined : block.input;
      toolUses.push({ callId: block.id, name: block.name, input });
    }
    // An empty text block is not accepted back as input; it carried nothing.
    const content = this.#blocks.filter((block) => !(block.type === "text" && block.text === ""));
    return { message: { role: "assistant", content }, toolUses };
  }

  #start(data: Record<string, unknown>): void {
    const { index, content_block: block } = data;
    if (typeof index !== "number" || index !== this.#blocks.length) {
      this.fail();
      return;
    }
    if (!isRecord(block) || typeof block.type !== "string") {
      this.fail();
      return;
    }
    const copy: Block = { ...block, type: block.type };
    this.#blocks.push(copy);
    if (copy.type === "tool_use") {
      this.#json.set(index, "");
      if (copy.name !== EXPAND_TOOL_NAME) this.decide("through");
      else this.decide("expand");
    } else if (copy.type === "text") {
      if (typeof copy.text === "string" && copy.text.trim() !== "") this.decide("through");
    } else if (!KNOWN.has(copy.type)) {
      this.fail();
    }
  }

  #delta(data: Record<string, unknown>): void {
    const { index, delta } = data;
    const block = typeof index === "number" ? this.#blocks[index] : undefined;
    if (block === undefined || !isRecord(delta)) {
      this.fail();
      return;
    }
    switch (delta.type) {
      case "text_delta":
        if (block.type !== "text" || typeof delta.text !== "string") {
          this.fail();
          return;
        }
        block.text = `${typeof block.text === "string" ? block.text : ""}${delta.text}`;
        if (delta.text.trim() !== "") this.decide("through");
        return;
      case "thinking_delta":
        if (block.type !== "thinking" || typeof delta.thinking !== "string") {
          this.fail();
          return;
        }
        block.thinking = `${typeof block.thinking === "string" ? block.thinking : ""}${delta.thinking}`;
        return;
      case "signature_delta":
        if (block.type !== "thinking" || typeof delta.signature !== "string") {
          this.fail();
          return;
        }
        block.signature = `${typeof block.signature === "string" ? block.signature : ""}${delta.signature}`;
        return;
      case "citations_delta": {
        if (block.type !== "text" || delta.citation === undefined) {
          this.fail();
          return;
        }
        // The array is the block's own (parsed from its start event, or made here): it grows.
        if (Array.isArray(block.citations)) block.citations.push(delta.citation);
        else block.citations = [delta.citation];
        return;
      }
      case "input_json_delta": {
        const json = this.#json.get(index as number);
        if (json === undefined || typeof delta.partial_json !== "string") {
          this.fail();
          return;
        }
        this.#json.set(index as number, json + delta.partial_json);
        return;
      }
      default: {
        this.fail();
        return;
      }
    }
  }

  #stop(data: Record<string, unknown>): void {
    const { index } = data;
    if (typeof index !== "number") {
      this.fail();
      return;
    }
    const block = this.#blocks[index];
    const json = this.#json.get(index);
    if (block === undefined) {
      this.fail();
      return;
    }
    if (json === undefined) return;
    this.#json.delete(index);
    const input = json === "" ? block.input : parseArguments(json);
    if (input === undefined && block.name === EXPAND_TOOL_NAME) {
      // The turn goes back upstream with an empty input and the placeholder as its result.
      this.#malformed.add(index);
      block.input = {};
      return;
    }
    if (input === undefined) {
      this.fail();
      return;
    }
    block.input = input;
  }
}
