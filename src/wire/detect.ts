import type { Provider } from "./types.js";

export type ProviderChoice = Provider | "auto";

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * §2 sniffing: Anthropic when the body has a top-level `system` string or array, or any
 * `tool_use` / `tool_result` content block; OpenAI otherwise.
 */
export function detectProvider(body: Record<string, unknown>): Provider {
  const { system, messages } = body;
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

export function parseProviderChoice(value: string | undefined): ProviderChoice | undefined {
  if (value === undefined || value === "") return "auto";
  return value === "openai" || value === "anthropic" || value === "auto" ? value : undefined;
}
