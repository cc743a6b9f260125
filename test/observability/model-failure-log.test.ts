import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import { createLogger } from "../../src/observability/logger.js";
import { createStore } from "../../src/store/create.js";
import { logOutput, openaiBody } from "../support/bodies.js";
import { type ModelReply, ScriptedModel } from "../support/scripted-model.js";

const KEY = "sk-cheap-model-planted-0f9e";
const CONTENT = "PLANTED-TOOL-CONTENT-5c1d";

/** POST /compact through extract_llm whose cheap model is at `baseUrl`; the log lines it wrote. */
async function compactLogging(baseUrl: string) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  const config = parseConfig({
    pipeline: ["extract_llm"],
    components: {
      extract_llm: {
        min_tokens: 10,
        model: { base_url: baseUrl, model: "cheap-1", api_key: KEY, max_retries: 1 },
      },
    },
  });
  const app = createApp({
    config,
    store: createStore(config.store),
    logger: createLogger({ destination }),
  });
  const body = openaiBody([`${CONTENT}\n${logOutput(200, "x")}`]);
  const response = await app.request("/compact", { method: "POST", body });
  expect([response.status, await response.text()]).toEqual([200, body]);
  return lines;
}

const failures = (lines: string[]) =>
  lines
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === "model call failed");

describe("a failed cheap-model call is logged, without its URL, key or content", () => {
  it.each<[string, ModelReply, string]>([
    [
      "an error status",
      { status: 503, body: `upstream says ${CONTENT}` },
      "model answered HTTP 503 (2 attempts)",
    ],
  ])("%s", async (_, reply, reason) => {
    const model = await ScriptedModel.start();
    model.script(() => reply);
    try {
      const lines = await compactLogging(model.openaiUrl);
      expect(failures(lines)).toEqual([
        expect.objectContaining({
          level: "warn",
          component: "extract_llm",
          model: "cheap-1",
          reason,
          attempts: 2,
        }),
      ]);
      const text = lines.join("\n");
      for (const secret of [KEY, CONTENT, "127.0.0.1", `:${new URL(model.openaiUrl).port}`]) {
        expect(text).not.toContain(secret);
      }
    } finally {
      await model.close();
    }
  });

  it("an endpoint that refuses connections names the socket error", async () => {
    const model = await ScriptedModel.start();
    const url = model.openaiUrl;
    await model.close();
    const lines = await compactLogging(url);
    expect(failures(lines)).toEqual([
      expect.objectContaining({
        component: "extract_llm",
        reason: "model endpoint unreachable (ECONNREFUSED)",
      }),
    ]);
    expect(lines.join("\n")).not.toMatch(new RegExp(`127\\.0\\.0\\.1|:${new URL(url).port}`));
  });
});
