import type OpenAI from "openai";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { expandCall, openaiJson } from "../support/model-replies.js";
import {
  type Harness,
  MASKED_ID,
  openaiClient,
  openaiConversation,
  startHarness,
  toolOutput,
} from "../support/proxy-harness.js";

/** §10: the loop resolves only ids the request carries, even those its session owns. */
describe("the expand loop resolves only ids of the request it carries", () => {
  let harness: Harness;
  let client: OpenAI;
  const session = { headers: { "x-context-guru-session": "owner" } };

  beforeAll(async () => {
    harness = await startHarness();
    client = openaiClient(harness);
  });
  afterAll(() => harness.close());
  beforeEach(() => harness.reset());

  it("an id the session stashed earlier but this request lacks is answered with the placeholder", async () => {
    harness.upstream.reply(openaiJson("first turn done"));
    // Decided whole (§4a), so the first turn masks its oldest output and stashes it.
    await client.chat.completions.create(openaiConversation(), {
      headers: { ...session.headers, "x-context-guru-cache": "cold" },
    });
    expect(await harness.store.get("owner", MASKED_ID)).toBeDefined();

    // A request of the same session that does not carry the marker; the model asks for it.
    const call = expandCall(MASKED_ID);
    harness.upstream.reply(openaiJson(null, [call]), openaiJson("done"));
    const tools = openaiConversation().tools ?? [];
    const completion = await client.chat.completions.create(
      { model: "gpt-test", messages: [{ role: "user", content: "What was in module 0?" }], tools },
      session,
    );

    // The original never reaches the model: the call is answered as a miss, and the client,
    // which never declared the expand tool, gets the model's next answer.
    expect(completion.choices[0]?.message).toMatchObject({ content: "done" });
    expect(harness.upstream.requests).toHaveLength(3);
    const continuation = harness.upstream.requests[2];
    expect(continuation?.body).not.toContain(toolOutput(0).slice(0, 200));
    expect((continuation?.json as { messages?: unknown[] } | undefined)?.messages?.at(-1)).toEqual({
      role: "tool",
      tool_call_id: call.id,
      content: `[expand: original for id ${MASKED_ID} is no longer available]`,
    });
    expect(harness.events).toMatchObject({ rounds: 1, resolved: 0 });
  });
});
