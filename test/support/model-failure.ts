import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import type { ComponentName } from "../../src/config/schema.js";
import { ModelPool } from "../../src/model/pool.js";
import type { Registry } from "../../src/pipeline/run.js";
import type { Component } from "../../src/pipeline/types.js";
import { createStore } from "../../src/store/create.js";
import { type ModelReply, ScriptedModel } from "./scripted-model.js";

/**
 * POST /compact through a pipeline of one LLM-backed component whose cheap model, a scripted
 * one of its own, answers every call with `reply` (a 200 ms compaction deadline bounds a model
 * that never answers). Resolves with the response and the number of calls the model got.
 */
export async function compactWithModelReply(
  name: Extract<ComponentName, "summarize" | "extract_llm">,
  options: Record<string, unknown>,
  create: (pool: ModelPool) => Component,
  reply: ModelReply,
  body: string,
): Promise<{ status: number; text: string; modelCalls: number }> {
  const own = await ScriptedModel.start();
  try {
    own.script(() => reply);
    const config = parseConfig({
      pipeline: [name],
      limits: { compact_timeout_ms: 200 },
      components: {
        [name]: {
          ...options,
          model: { base_url: own.openaiUrl, model: "cheap-1", timeout_ms: 60_000 },
        },
      },
    });
    const registry = { [name]: create(new ModelPool({ retryBaseMs: 1 })) } as Registry;
    const app = createApp({ config, store: createStore(config.store), registry });
    const response = await app.request("/compact", {
      method: "POST",
      body,
      // Cold, so components that reach back (summaries) decide on this request (§4a).
      headers: { "content-type": "application/json", "x-context-guru-cache": "cold" },
    });
    return {
      status: response.status,
      text: await response.text(),
      modelCalls: own.requests.length,
    };
  } finally {
    await own.close();
  }
}
