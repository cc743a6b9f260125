import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { contentText } from "../src/wire/chat/content-text.js";
import { isRecord } from "../src/wire/is-record.js";
import { scanBody } from "../src/wire/json-scan.js";
import { messagesView } from "../src/wire/message-views.js";
import { wireShape } from "../src/wire/registry.js";
import type { Provider } from "../src/wire/types.js";

/**
 * The prompt a model server sees for a request body, as o200k_base tokens (SPEC §11): the tool
 * definitions, the system text, then each message (Responses: item) as its role and what the
 * model reads of it.
 * Each part is encoded on its own, as a chat template separates them with special tokens, so a
 * message that did not change keeps its tokens whatever follows it.
 */
export class PromptTokens {
  readonly #memo = new Map<string, readonly number[]>();

  of(provider: Provider, text: string): number[] {
    const body: unknown = JSON.parse(text);
    const shape = wireShape(provider);
    const key = shape.scan.conversation;
    const scan = scanBody(text, shape.scan);
    const conversation = isRecord(body) ? body[key] : undefined;
    if (!isRecord(body) || !Array.isArray(conversation) || !scan) {
      throw new Error(`body has no ${key} array`);
    }
    const parts: string[] = [];
    const tools = scan.members.get("tools");
    if (tools) parts.push(`[tools]\n${text.slice(tools.start, tools.end)}`);
    // Anthropic's `system`, a Responses body's `instructions`: the system text.
    const system = body.system ?? body.instructions;
    if (system !== undefined) parts.push(`[system]\n${contentText(system)}`);
    for (const message of messagesView(shape, conversation, scan, text).messages) {
      parts.push(`[${message.role}]\n${message.text}`);
    }
    const tokens: number[] = [];
    for (const part of parts) for (const token of this.#encoded(part)) tokens.push(token);
    return tokens;
  }

  /** Tokens of one text on its own (a tool output, a call's arguments). */
  count(text: string): number {
    return this.#encoded(text).length;
  }

  #encoded(part: string): readonly number[] {
    let encoded = this.#memo.get(part);
    if (!encoded) {
      encoded = encode(part);
      this.#memo.set(part, encoded);
    }
    return encoded;
  }
}

/** Length of the longest common prefix of two token lists. */
export function commonPrefix(a: readonly number[], b: readonly number[]): number {
  const end = Math.min(a.length, b.length);
  let at = 0;
  while (at < end && a[at] === b[at]) at++;
  return at;
}
