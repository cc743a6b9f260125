import type { ModelCallReport } from "../pipeline/report.js";
import type { ModelClient } from "./client.js";
import { ModelError } from "./errors.js";
import type { ModelPrompt } from "./protocol.js";

/** A component's judgement of an answer: the value to use, or why it is refused. */
export type Verdict<T> = { readonly value: T } | { readonly rejected: string };

/**
 * Asks once, checks the answer with `verdict`, and reports the call. Resolves with the accepted
 * value, or undefined for every kind of failure (timeout, HTTP error, garbage, an
 * answer that does not verify): an LLM-backed component then leaves its input as it was.
 */
export async function askModel<T>(
  client: ModelClient,
  prompt: ModelPrompt,
  signal: AbortSignal,
  verdict: (answer: string) => Verdict<T>,
  report: ((call: ModelCallReport) => void) | undefined,
): Promise<T | undefined> {
  const started = performance.now();
  const model = client.endpoint.model;
  try {
    const answer = await client.complete(prompt, signal);
    const usage = {
      model,
      durationMs: performance.now() - started,
      attempts: answer.attempts,
      ...(answer.inputTokens !== undefined ? { inputTokens: answer.inputTokens } : {}),
      ...(answer.outputTokens !== undefined ? { outputTokens: answer.outputTokens } : {}),
    };
    let judged: Verdict<T>;
    try {
      judged = verdict(answer.text);
    } catch (error) {
      judged = { rejected: error instanceof Error ? error.message : String(error) };
    }
    if ("rejected" in judged) {
      report?.({ ...usage, outcome: "rejected", reason: judged.rejected });
      return undefined;
    }
    report?.({ ...usage, outcome: "accepted" });
    return judged.value;
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    report?.({
      model,
      outcome: "failed",
      reason: error.message,
      durationMs: performance.now() - started,
      attempts: "attempts" in error && typeof error.attempts === "number" ? error.attempts : 1,
    });
    return undefined;
  }
}

/** Reports that a component had no model to ask (it then leaves the request alone). */
export function reportSkipped(
  error: ModelError,
  report: ((call: ModelCallReport) => void) | undefined,
): void {
  report?.({ model: "", outcome: "skipped", reason: error.message, durationMs: 0, attempts: 0 });
}
