import { isRecord } from "../wire/is-record.js";
import type { Upstream as Provider } from "../wire/types.js";
import { ModelResponseError } from "./errors.js";

/** One question to a cheap model: a system instruction and one user message. */
export interface ModelPrompt {
  readonly system: string;
  readonly user: string;
  /** Upper bound on the answer's length in tokens. */
  readonly maxTokens: number;
}

/** The text of an answer and the usage the endpoint reported (when it did). */
export interface ParsedAnswer {
  readonly text: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

/** The request body for the provider's chat endpoint; temperature 0 for repeatable answers. */
export function requestBody(provider: Provider, model: string, prompt: ModelPrompt): string {
  if (provider === "anthropic") {
    return JSON.stringify({
      model,
      max_tokens: prompt.maxTokens,
      temperature: 0,
      system: prompt.system,
      messages: [{ role: "user", content: prompt.user }],
    });
  }
  return JSON.stringify({
    model,
    max_tokens: prompt.maxTokens,
    temperature: 0,
    messages: [
      { role: "system", content: prompt.system },
      { role: "user", content: prompt.user },
    ],
  });
}

/** Reads the answer text out of a provider response body; throws ModelResponseError otherwise. */
export function parseAnswer(provider: Provider, body: string): ParsedAnswer {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    throw new ModelResponseError("body is not JSON", { cause: error });
  }
  if (!isRecord(json)) throw new ModelResponseError("body is not a JSON object");
  return provider === "anthropic" ? anthropicAnswer(json) : openaiAnswer(json);
}

function openaiAnswer(json: Record<string, unknown>): ParsedAnswer {
  const choice = Array.isArray(json.choices) ? (json.choices[0] as unknown) : undefined;
  const message = isRecord(choice) ? choice.message : undefined;
  const content = isRecord(message) ? message.content : undefined;
  let text: string | undefined;
  if (typeof content === "string") text = content;
  else if (Array.isArray(content)) text = joinTextParts(content);
  if (text === undefined || text.trim() === "") {
    throw new ModelResponseError("no text in choices[0].message.content");
  }
  const usage = isRecord(json.usage) ? json.usage : {};
  return withUsage(text, usage.prompt_tokens, usage.completion_tokens);
}

function anthropicAnswer(json: Record<string, unknown>): ParsedAnswer {
  const text = Array.isArray(json.content) ? joinTextParts(json.content) : undefined;
  if (text === undefined || text.trim() === "") {
    throw new ModelResponseError("no text block in content");
  }
  const usage = isRecord(json.usage) ? json.usage : {};
  return withUsage(text, usage.input_tokens, usage.output_tokens);
}

function joinTextParts(parts: readonly unknown[]): string | undefined {
  const texts = parts.flatMap((part) =>
    isRecord(part) && part.type === "text" && typeof part.text === "string" ? [part.text] : [],
  );
  return texts.length === 0 ? undefined : texts.join("");
}

function withUsage(text: string, input: unknown, output: unknown): ParsedAnswer {
  return {
    text,
    ...(isCount(input) ? { inputTokens: input } : {}),
    ...(isCount(output) ? { outputTokens: output } : {}),
  };
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
