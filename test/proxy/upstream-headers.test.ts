import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { anthropicJson, openaiJson } from "../support/model-replies.js";
import {
  anthropicClient,
  anthropicConversation,
  type Harness,
  openaiClient,
  openaiConversation,
  startHarness,
} from "../support/proxy-harness.js";

/** Headers an upstream sets in this service's own namespace, as if it had compacted. */
const FORGED = {
  "x-context-guru-markers": "99",
  "x-context-guru-tokens-before": "1",
  "x-context-guru-session": "someone-else",
  "x-context-guru-restored": "5",
  "x-upstream-trace": "kept",
};

/** The response headers the client got, restricted to the forged names. */
const seen = (headers: Headers) =>
  Object.fromEntries(Object.keys(FORGED).map((name) => [name, headers.get(name)]));

describe("the upstream's own x-context-guru-* response headers never reach the client", () => {
  let harness: Harness;

  beforeAll(async () => {
    harness = await startHarness();
  });
  afterAll(() => harness.close());
  beforeEach(() => harness.reset());

  // Bypass: the proxy compacts nothing, so it sets no token counts that would hide a relay.
  const options = {
    headers: { "x-context-guru-session": "headers", "x-context-guru-bypass": "true" },
  };

  /** The service's own headers never come from upstream; the upstream's others pass. */
  const PASSED_ON = {
    "x-context-guru-markers": null,
    "x-context-guru-tokens-before": null,
    "x-context-guru-session": "headers",
    "x-context-guru-restored": null,
    "x-upstream-trace": "kept",
  };

  it("OpenAI client", async () => {
    harness.upstream.reply({ ...openaiJson("hi"), headers: FORGED });
    const client = openaiClient(harness);
    const { response } = await client.chat.completions
      .create(openaiConversation(), options)
      .withResponse();
    expect(seen(response.headers)).toEqual(PASSED_ON);
  });

  it("Anthropic client", async () => {
    harness.upstream.reply({ ...anthropicJson([{ type: "text", text: "hi" }]), headers: FORGED });
    const client = anthropicClient(harness);
    const { response } = await client.messages
      .create(anthropicConversation(), options)
      .withResponse();
    expect(seen(response.headers)).toEqual(PASSED_ON);
  });
});
