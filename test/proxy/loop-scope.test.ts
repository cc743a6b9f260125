import OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { expandCall, openaiJson } from "../support/model-replies.js";
import {
  type Harness,
  MASKED_ID,
  openaiConversation,
  startHarness,
} from "../support/proxy-harness.js";

/** §10: the loop resolves only ids the request carries, even those its session owns. */
describe("the expand loop resolves only ids of the request it carries", () => {
  let harness: Harness;
  let client: OpenAI;
  const session = { headers: { "x-context-guru-session": "owner" } };

  beforeAll(async () => {
    harness = await startHarness();
    client = new OpenAI({
      baseURL: `http://127.0.0.1:${harness.port}/v1`,
      apiKey: "sk-client",
      maxRetries: 0,
    });
  });
  afterAll(() => harness.close());
  beforeEach(() => harness.reset());

  it("an id the session stashed earlier but this request lacks goes back to the client", async () => {
    harness.upstream.reply(openaiJson("first turn done"));
    // Decided whole (§4a), so the first turn masks its oldest output and stashes it.
    await client.chat.completions.create(openaiConversation(), {
      headers: { ...session.headers, "x-context-guru-cache": "cold" },
    });
    expect(await harness.store.get("owner", MASKED_ID)).toBeDefined();

    // A request of the same session that does not carry the marker; the model asks for it.
    harness.upstream.reply(openaiJson(null, [expandCall(MASKED_ID)]));
    const tools = openaiConversation().tools ?? [];
    const completion = await client.chat.completions.create(
      { model: "gpt-test", messages: [{ role: "user", content: "What was in module 0?" }], tools },
      session,
    );

    expect(harness.upstream.requests).toHaveLength(2);
    const calls = completion.choices[0]?.message.tool_calls ?? [];
    expect(
      calls.map((call) => (call.type === "function" ? call.function.name : call.type)),
    ).toEqual(["context_guru_expand"]);
    expect(harness.events).toMatchObject({ rounds: 0, resolved: 0 });
  });
});
