import { describe, expect, it } from "vitest";
import { components } from "../../src/components/registry.js";
import type { Registry } from "../../src/pipeline/run.js";
import type { Component } from "../../src/pipeline/types.js";
import { CLEAN, postCompact, testApp } from "../support/app.js";

/**
 * Output-scoped results are memoised by the output's current text and call, and by its content
 * class, which was decided from the text as received: two outputs that a reformat made equal
 * but that were received as different classes are each reduced as what they are.
 */
const probe: Component<"extract"> = {
  name: "extract",
  kind: "offload",
  scope: "output",
  reachesBack: false,
  bounds: false,
  reduce: (output) => `[${output.contentClass}]`,
};

describe("the output memo", () => {
  it("keeps results of outputs received as different classes apart", async () => {
    const json = JSON.stringify(Array.from({ length: 40 }, (_, i) => i * 1000));
    const coloured = `${json}\u001b[0m`;
    const { app } = testApp(CLEAN, { registry: { ...components, extract: probe } as Registry });
    const call = (id: string) => ({
      role: "assistant",
      content: null,
      tool_calls: [
        { id, type: "function", function: { name: "Bash", arguments: '{"command":"./list.sh"}' } },
      ],
    });
    const body = JSON.stringify({
      model: "gpt-4o",
      messages: [
        { role: "user", content: "list them" },
        call("a"),
        { role: "tool", tool_call_id: "a", content: coloured },
        call("b"),
        { role: "tool", tool_call_id: "b", content: json },
      ],
    });
    const response = await postCompact(app, body, {
      headers: { "x-context-guru-pipeline": "textclean,extract" },
    });
    const { messages } = (await response.json()) as { messages: Array<{ content: unknown }> };
    expect([messages[2]?.content, messages[4]?.content]).toEqual(["[log]", "[json]"]);
  });
});
