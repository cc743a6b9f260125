import { describe, expect, it } from "vitest";
import { components } from "../../src/components/registry.js";
import { markerIds } from "../../src/expand/markers.js";
import type { Registry } from "../../src/pipeline/run.js";
import type { Component } from "../../src/pipeline/types.js";
import { COLD, postCompact, testApp } from "../support/app.js";
import { jsonArrayOutput, logOutput, openaiBody } from "../support/bodies.js";

type Body = { messages: Array<{ content: string | null }> };
const contents = (text: string) => (JSON.parse(text) as Body).messages.map((m) => m.content);

const throwing: Component<"textclean"> = {
  name: "textclean",
  kind: "reformat",
  scope: "output",
  reachesBack: false,
  bounds: false,
  reduce() {
    throw new Error("boom");
  },
};
const growing: Component<"extract"> = {
  name: "extract",
  kind: "offload",
  scope: "output",
  reachesBack: false,
  bounds: false,
  reduce: (output, _options, context) =>
    `${output.text}\n${output.text}\n${context.marker(output.text)}`,
};
const keyless: Component<"linecap"> = {
  name: "linecap",
  kind: "offload",
  scope: "request",
  reachesBack: false,
  bounds: false,
  select: (_options, context) => context.outputs.map((output) => ({ index: output.index })),
  reduce: () => "[dropped]",
};
const rejecting: Component<"dedup"> = {
  name: "dedup",
  kind: "offload",
  scope: "request",
  reachesBack: false,
  bounds: false,
  select: () => Promise.reject(new Error("async boom")),
  reduce: () => "",
};

describe("pipeline guards revert one component and the run goes on", () => {
  const registry: Registry = {
    ...components,
    textclean: throwing,
    extract: growing,
    linecap: keyless,
    dedup: rejecting,
  };
  const pipeline = "format,textclean,dedup,extract,linecap,mask";
  const outputs = [
    jsonArrayOutput(40),
    logOutput(200, "a"),
    logOutput(200, "b"),
    logOutput(200, "c"),
    "tail",
  ];
  const body = openaiBody(outputs);

  it("the components after a throwing, rejecting, growing and keyless one still run", async () => {
    // Mask keeps the newest three outputs here, so the third and fourth come back as received.
    const { app } = testApp({ components: { mask: { keep_recent: 3 } } }, { registry });
    const response = await postCompact(app, body, {
      headers: { "x-context-guru-pipeline": pipeline, ...COLD },
    });
    const [, , , first, , second, , third, , fourth, , fifth] = contents(await response.text());
    expect(markerIds(first ?? "")).toHaveLength(1);
    expect(second).toMatch(
      /^\[older tool output masked: \$ step 1\] <<cg:[0-9a-f]{16}>> \[full output: call context_guru_expand\]$/,
    );
    expect(third).toBe(outputs[2]);
    expect(fourth).toBe(outputs[3]);
    expect(fifth).toBe("tail");
  });

  it("a reformat after a reverted component applies", async () => {
    const { app } = testApp({}, { registry });
    const response = await postCompact(app, body, {
      headers: { "x-context-guru-pipeline": "textclean,dedup,format" },
    });
    const texts = contents(await response.text());
    expect(texts[3]).toBe(JSON.stringify(JSON.parse(outputs[0] as string)));
    expect(texts.slice(4)).toEqual(contents(body).slice(4));
  });

  it("an offload without a cache key is reverted in full mode", async () => {
    const { app } = testApp({}, { registry });
    const response = await postCompact(app, body, {
      headers: { "x-context-guru-pipeline": "linecap" },
    });
    expect(await response.text()).toBe(body);
  });

  it("the same keyless offload is allowed in off mode (nothing to resolve)", async () => {
    const { app } = testApp({ marker_mode: "off", store: { enabled: false } }, { registry });
    const response = await postCompact(app, body, {
      headers: { "x-context-guru-pipeline": "linecap" },
    });
    expect(contents(await response.text())[5]).toBe("[dropped]");
  });

  it("a growing offload is dropped per output", async () => {
    const { app } = testApp({}, { registry });
    const response = await postCompact(app, body, {
      headers: { "x-context-guru-pipeline": "extract" },
    });
    expect(await response.text()).toBe(body);
  });
});
