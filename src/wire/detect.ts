import { isRecord } from "./is-record.js";
import type { Provider } from "./types.js";

export type ProviderChoice = Provider | "auto";

/**
 * §2 sniffing: OpenAI Responses when the body has an `input` array and no `messages`; Anthropic
 * when it has a top-level `system` string or array, or any `tool_use` / `tool_result` content
 * block; OpenAI chat otherwise.
 */
export function detectProvider(body: Record<string, unknown>): Provider {
  const { system, messages } = body;
  if (messages === undefined && Array.isArray(body.input)) return "responses";
  if (typeof system === "string" || Array.isArray(system)) return "anthropic";
  if (!Array.isArray(messages)) return "openai";
  for (const message of messages) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (isRecord(block) && (block.type === "tool_use" || block.type === "tool_result")) {
        return "anthropic";
      }
    }
  }
  return "openai";
}

export function resolveProvider(choice: ProviderChoice, body: Record<string, unknown>): Provider {
  return choice === "auto" ? detectProvider(body) : choice;
}

const CHOICES: readonly string[] = ["openai", "anthropic", "responses", "auto"];

export function parseProviderChoice(value: string | undefined): ProviderChoice | undefined {
  if (value === undefined || value === "") return "auto";
  return CHOICES.includes(value) ? (value as ProviderChoice) : undefined;
}
