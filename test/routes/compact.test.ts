import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { removeExpandTool } from "../../src/expand/uninject.js";
import { scanTopLevel } from "../../src/wire/json-scan.js";
import { wireShape } from "../../src/wire/registry.js";
import { sample } from "../observability/prometheus-text.js";
import { CLEAN, COLD, MASK_BY_AGE, postCompact, testApp } from "../support/app.js";
import { anthropicBody, jsonArrayOutput, logOutput, openaiBody } from "../support/bodies.js";
import { PROPERTY_RUNS } from "../support/property-runs.js";

const encoder = new TextEncoder();
const bytesOf = async (response: Response) => new Uint8Array(await response.arrayBuffer());

describe("POST /compact fails open", () => {
  const { app } = testApp();
  it.each([
    ["not JSON", "{not json"],
    ["empty", ""],
    ["no messages", '{"model":"m"}'],
    ["messages not an array", '{"model":"m","messages":{"role":"user"}}'],
    ["a JSON array", "[1,2,3]"],
    ["a JSON string", '"text"'],
    ["messages of wrong types", '{"messages":[1,"two",null,[3],{"role":7,"content":{"x":1}}]}'],
  ])("%s → 200 with the original bytes", async (_, body) => {
    const response = await postCompact(app, body);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.text()).toBe(body);
  });

  it("invalid UTF-8 → 200 with the original bytes", async () => {
    const body = new Uint8Array([
      ...encoder.encode('{"messages":[{"role":"tool","content":"'),
      0xff,
      0xfe,
      ...encoder.encode('"}]}'),
    ]);
    const response = await postCompact(app, body);
    expect(response.status).toBe(200);
    expect(await bytesOf(response)).toEqual(body);
  });

  it("over the body limit → 413 with a JSON error", async () => {
    const body = `{"messages":[],"pad":"${"x".repeat(33 * 1024 * 1024)}"}`;
    const response = await postCompact(app, body);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: "request body exceeds 33554432 bytes" });
  });

  it("honours a configured body limit", async () => {
    const small = testApp({ limits: { body_bytes: 100 } });
    expect((await postCompact(small.app, openaiBody(["x".repeat(200)]))).status).toBe(413);
    expect((await postCompact(small.app, '{"messages":[]}')).status).toBe(200);
  });

  it("an unknown provider value returns the original bytes", async () => {
    const body = openaiBody([jsonArrayOutput(30)]);
    const response = await postCompact(app, body, { query: "?provider=gemini" });
    expect(await response.text()).toBe(body);
  });
});

describe("POST /compact rewrites only what changed", () => {
  const { app } = testApp(CLEAN);

  it("unchanged bodies come back byte-identical with headers", async () => {
    const body = openaiBody(["short output"]);
    const response = await postCompact(app, body);
    expect(await response.text()).toBe(body);
    expect(response.headers.get("x-context-guru-markers")).toBe("0");
    expect(Number(response.headers.get("x-context-guru-tokens-before"))).toBeGreaterThan(0);
    expect(response.headers.get("x-context-guru-tokens-after")).toBe(
      response.headers.get("x-context-guru-tokens-before"),
    );
  });

  it("keeps number spellings, big integers, escapes and key order outside the changed strings", async () => {
    const base = JSON.parse(openaiBody([jsonArrayOutput(40)])) as { messages: unknown[] };
    const messages = JSON.stringify(base.messages);
    const body = `{"z":1.0,"messages":${messages},"big":12345678901234567890,"e":1e3,"s":"\\u00e9\\u003c","a" : [ 1.50 ]}`;
    const response = await postCompact(app, body, { query: "?preset=llmd-toon" });
    const text = await response.text();
    expect(text).not.toBe(body);
    expect(text.startsWith('{"z":1.0,"messages":[')).toBe(true);
    expect(
      text.endsWith(',"big":12345678901234567890,"e":1e3,"s":"\\u00e9\\u003c","a" : [ 1.50 ]}'),
    ).toBe(true);
    const parsed = JSON.parse(text) as { messages: Array<{ content: unknown }> };
    expect(parsed.messages[3]?.content).toMatch(/^\[40\]\{id,name,status,region,latency_ms\}:/);
  });

  it("is deterministic", async () => {
    const body = anthropicBody([jsonArrayOutput(30), logOutput(300), logOutput(300)]);
    const first = await (await postCompact(app, body)).text();
    const second = await (await postCompact(app, body)).text();
    expect(first).not.toBe(body);
    expect(second).toBe(first);
  });

  it("bypass header returns the body untouched", async () => {
    const body = openaiBody([jsonArrayOutput(40)]);
    const response = await postCompact(app, body, { headers: { "x-context-guru-bypass": "true" } });
    expect(await response.text()).toBe(body);
  });

  it("pipeline header runs exactly those components", async () => {
    const body = openaiBody([jsonArrayOutput(40)]);
    // A session of its own: an earlier test sent this conversation, whose outputs would replay.
    const headers = {
      "x-context-guru-pipeline": "format",
      "x-context-guru-session": "only-format",
    };
    const formatted = await (await postCompact(app, body, { headers })).text();
    const content = (JSON.parse(formatted) as { messages: Array<{ content: string }> }).messages[3]
      ?.content;
    expect(content).toBe(JSON.stringify(JSON.parse(jsonArrayOutput(40))));
  });

  it("a header naming the same components thousands of times runs each of them once", async () => {
    // Both components are gated, so each pass of one is one count in cg_component_gated_total.
    const gated = { trigger: { min_messages: 1000 } };
    const { app: counted } = testApp({ components: { format: gated, textclean: gated } });
    const names = Array.from({ length: 7_040 }, (_, index) =>
      index % 2 === 0 ? "format" : " textclean",
    ).join(",");
    const response = await postCompact(counted, openaiBody([jsonArrayOutput(40)]), {
      headers: { "x-context-guru-pipeline": names },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-context-guru-pipeline-fallback")).toBeNull();
    const metrics = await (await counted.request("/metrics")).text();
    for (const component of ["format", "textclean"]) {
      expect(
        sample(metrics, "cg_component_gated_total", { component, reason: "min_messages" }),
      ).toBe(1);
    }
  });

  it("an unknown pipeline name falls back to the configured pipeline and says so", async () => {
    const body = openaiBody([jsonArrayOutput(40)]);
    const response = await postCompact(app, body, {
      headers: { "x-context-guru-pipeline": "format,nope" },
    });
    expect(response.headers.get("x-context-guru-pipeline-fallback")).toBe("configured");
    const expected = await (await postCompact(app, body)).text();
    expect(await response.text()).toBe(expected);
  });

  it("an unknown preset falls back too", async () => {
    const response = await postCompact(app, openaiBody(["x"]), { query: "?preset=nope" });
    expect(response.headers.get("x-context-guru-pipeline-fallback")).toBe("configured");
  });

  it("counts summary-mode sentinels in x-context-guru-markers", async () => {
    const summary = testApp({ ...MASK_BY_AGE, marker_mode: "summary" }).app;
    const outputs = [logOutput(100, "a"), logOutput(100, "b"), logOutput(100, "c"), "x", "y"];
    const response = await postCompact(summary, openaiBody(outputs), { headers: COLD });
    const text = await response.text();
    const sentinels = text.split("\u27eacg\u27eb").length - 1;
    expect(sentinels).toBe(2);
    expect(response.headers.get("x-context-guru-markers")).toBe(String(sentinels));
  });

  it("reports the explicit session, an unusable one hashed, else a derived one", async () => {
    const body = openaiBody(["x"]);
    const explicit = await postCompact(app, body, {
      headers: { "x-context-guru-session": "abc.1:2-3" },
    });
    expect(explicit.headers.get("x-context-guru-session")).toBe("abc.1:2-3");
    const hashed = await postCompact(app, body, {
      headers: { "x-context-guru-session": "bad id!" },
    });
    expect(hashed.headers.get("x-context-guru-session")).toMatch(/^sha256:[0-9a-f]{32}$/);
    const derived = await postCompact(app, body);
    expect(derived.headers.get("x-context-guru-session")).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe("POST /compact property: random JSON bodies", () => {
  const { app } = testApp();
  const json = fc.jsonValue({ maxDepth: 4 });
  const body = fc.oneof(
    json.map((value) => JSON.stringify(value)),
    fc
      .record({ model: json, messages: fc.array(json, { maxLength: 6 }), extra: json })
      .map((value) => JSON.stringify(value)),
    fc
      .array(fc.string({ minLength: 0, maxLength: 400 }), { maxLength: 5 })
      .map((outputs) => openaiBody(outputs)),
  );

  it("answers 200 with the input bytes or valid JSON whose non-messages members are unchanged", async () => {
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        const response = await postCompact(app, text);
        expect(response.status).toBe(200);
        const answer = await response.text();
        if (answer === text) return;
        JSON.parse(answer);
        // The expand tool a session's first request is given (§4a) is the one change outside
        // the messages.
        const out = removeExpandTool(answer, wireShape("openai"));
        const input = scanTopLevel(text);
        const output = scanTopLevel(out);
        expect([...(output?.members.keys() ?? [])]).toEqual([...(input?.members.keys() ?? [])]);
        for (const [key, span] of input?.members ?? []) {
          const other = output?.members.get(key);
          if (key === "messages" || !other) continue;
          expect(out.slice(other.start, other.end)).toBe(text.slice(span.start, span.end));
        }
      }),
      { numRuns: PROPERTY_RUNS },
    );
  });
});
