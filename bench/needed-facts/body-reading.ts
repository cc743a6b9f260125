import { contentText } from "../../src/wire/chat/content-text.js";
import { isRecord } from "../../src/wire/is-record.js";
import { scanBody } from "../../src/wire/json-scan.js";
import { wireShape } from "../../src/wire/registry.js";
import { readTranscript } from "../../src/wire/transcript.js";
import type { Provider } from "../../src/wire/types.js";
import type { Action } from "./action-references.js";
import { withoutListingColumn } from "./listing.js";

/** Where a needed fact can come from: a tool output, or the arguments of the call that made one. */
export interface Source {
  readonly kind: "output" | "call";
  /** Position among the body's tool outputs (a call: of its first output), 0-based. */
  readonly output: number;
  readonly tool: string;
  /** The call's parsed arguments (undefined when unparseable). */
  readonly input: unknown;
  /** What is searched: an output without its listing column; a call's values, one per line. */
  readonly searched: string;
  /** What a recovery writes again: the output as it is, the call's arguments as JSON. */
  readonly text: string;
}

/** A request body read for needed facts, in the form the model reads it (SPEC §11). */
export interface BodyReading {
  readonly messages: number;
  readonly outputs: number;
  /** What the agent was told or said itself: tools, system, user and assistant text. */
  readonly given: readonly string[];
  /** Every call (once) and every tool output, in conversation order. */
  readonly sources: readonly Source[];
  /** Text of assistant messages, with the message that holds it. */
  readonly said: readonly { readonly message: number; readonly text: string }[];
}

/** Reads bodies, remembering each output's searched form (agents re-send outputs every turn). */
export class BodyReader {
  readonly #searched = new Map<string, string>();

  read(provider: Provider, text: string): BodyReading {
    const body: unknown = JSON.parse(text);
    const shape = wireShape(provider);
    const key = shape.scan.conversation;
    const conversation = isRecord(body) ? body[key] : undefined;
    const scan = scanBody(text, shape.scan);
    if (!isRecord(body) || !Array.isArray(conversation) || !scan) {
      throw new Error(`body has no ${key} array`);
    }
    const messages: readonly unknown[] = conversation;
    const transcript = readTranscript(shape, messages, scan);
    const given: string[] = [];
    const tools = scan.members.get("tools");
    if (tools) given.push(text.slice(tools.start, tools.end));
    const system = body.system ?? body.instructions;
    if (system !== undefined) given.push(contentText(system));
    const said: { message: number; text: string }[] = [];
    for (const item of transcript.strings) {
      if (item.tool) continue;
      given.push(item.text);
      const message = messages[item.messageIndex];
      if (isRecord(message) && message.role === "assistant") {
        said.push({ message: item.messageIndex, text: item.text });
      }
    }
    const sources: Source[] = [];
    const called = new Set<string>();
    for (const output of transcript.outputs) {
      const { call } = output;
      const tool = call?.name ?? "";
      if (call && !called.has(call.id)) {
        called.add(call.id);
        sources.push({
          kind: "call",
          output: output.index,
          tool,
          input: call.input,
          searched: valuesOf(call.input).join("\n"),
          text: JSON.stringify(call.input) ?? "",
        });
      }
      sources.push({
        kind: "output",
        output: output.index,
        tool,
        input: call?.input,
        searched: this.searchable(output.text),
        text: output.text,
      });
    }
    return { messages: messages.length, outputs: transcript.outputs.length, given, sources, said };
  }

  /** A tool output (or a stashed original) as it is searched: without its listing column. */
  searchable(text: string): string {
    let searched = this.#searched.get(text);
    if (searched === undefined) {
      searched = withoutListingColumn(text);
      this.#searched.set(text, searched);
    }
    return searched;
  }
}

/**
 * The agent's next action after `turn`: what `next` (the following turn's body) adds in assistant
 * messages — their text and the arguments of their calls.
 */
export function nextAction(turn: BodyReading, next: BodyReading): Action {
  return {
    texts: next.said.filter((item) => item.message >= turn.messages).map((item) => item.text),
    inputs: next.sources
      .filter((source) => source.kind === "call" && source.output >= turn.outputs)
      .map((source) => source.input),
  };
}

/** The string and number values of parsed arguments, keys left out, in order. */
function valuesOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") into.push(value);
  else if (typeof value === "number") into.push(String(value));
  else if (Array.isArray(value)) for (const item of value) valuesOf(item, into);
  else if (isRecord(value)) for (const item of Object.values(value)) valuesOf(item, into);
  return into;
}
