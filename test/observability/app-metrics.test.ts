import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import { rawMarkerIds } from "../../src/expand/markers.js";
import { createStore } from "../../src/store/create.js";
import { MASKABLE_OUTPUTS, openaiBody } from "../support/bodies.js";
import { sample } from "./prometheus-text.js";

const outputs = MASKABLE_OUTPUTS;
const tools = [{ type: "function", function: { name: "Bash", parameters: { type: "object" } } }];

const completion = (message: Record<string, unknown>, finish: string) =>
  new Response(
    JSON.stringify({
      id: "c1",
      object: "chat.completion",
      created: 1,
      model: "m",
      choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish }],
    }),
    { headers: { "content-type": "application/json" } },
  );

/** Asks to expand the first marker it is sent, then answers once the original comes back. */
const upstream: typeof fetch = async (_input, init) => {
  const body = String(init?.body);
  if (body.includes('"role":"tool","tool_call_id":"x1"')) {
    return completion({ content: "Fixed." }, "stop");
  }
  const [id = "none"] = rawMarkerIds(body);
  return completion(
    {
      content: null,
      tool_calls: [
        {
          id: "x1",
          type: "function",
          function: { name: "context_guru_expand", arguments: JSON.stringify({ id }) },
        },
      ],
    },
    "tool_calls",
  );
};

describe("metrics through the app", () => {
  it("count compaction, the expand loop, the store and every route by default", async () => {
    const config = parseConfig({});
    const app = createApp({ config, store: createStore(config.store), fetch: upstream });
    const scrape = async () => (await app.request("/metrics")).text();
    const before = await scrape();

    const proxied = await app.request("/v1/chat/completions", {
      method: "POST",
      body: openaiBody(outputs, { model: "m", tools }),
      headers: {
        "content-type": "application/json",
        "x-context-guru-session": "s1",
        "x-context-guru-cache": "cold",
      },
    });
    const answer = (await proxied.json()) as { choices: Array<{ message: { content: string } }> };
    const compacted = await app.request("/compact", {
      method: "POST",
      body: openaiBody(outputs),
      headers: {
        "content-type": "application/json",
        "x-context-guru-session": "s2",
        "x-context-guru-cache": "cold",
      },
    });
    await compacted.text();
    const after = await scrape();

    expect(answer.choices[0]?.message.content).toBe("Fixed.");
    const series: Array<[string, Record<string, string>]> = [
      ["cg_expand_rounds_total", {}],
      ["cg_expand_resolutions_total", {}],
      ["cg_expand_misses_total", {}],
      ["cg_proxy_responses_total", { provider: "openai", delivery: "buffered" }],
      ["cg_http_requests_total", { route: "/v1/chat/completions", method: "POST", status: "200" }],
      ["cg_http_requests_total", { route: "/compact", method: "POST", status: "200" }],
    ];
    expect(series.map(([name, labels]) => sample(before, name, labels) ?? 0)).toEqual([
      0, 0, 0, 0, 0, 0,
    ]);
    expect(series.map(([name, labels]) => sample(after, name, labels))).toEqual([1, 1, 0, 1, 1, 1]);
    // Both compactions (the proxy's and the route's) are counted.
    const tokensBefore = sample(after, "cg_request_tokens_before_total") ?? 0;
    const tokensAfter = sample(after, "cg_request_tokens_after_total") ?? 0;
    expect(tokensBefore).toBe(2 * Number(compacted.headers.get("x-context-guru-tokens-before")));
    expect(tokensAfter).toBeLessThan(tokensBefore);
    expect(sample(after, "cg_component_tokens_saved_total", { component: "mask" })).toBeGreaterThan(
      0,
    );
    expect(sample(after, "cg_markers_written_total", { component: "mask" })).toBeGreaterThan(0);
    expect(sample(after, "cg_store_entries", { backend: "memory" })).toBeGreaterThan(0);
    expect(sample(after, "cg_store_bytes", { backend: "memory" })).toBeGreaterThan(0);
  });
});
