import { describe, expect, it } from "vitest";
import { markerIds } from "../../src/expand/markers.js";
import { COLD, postCompact, testApp } from "../support/app.js";
import { logOutput, openaiBody } from "../support/bodies.js";

/**
 * Two tenants whose agents open alike (the same system prompt and task) collide on one derived
 * session key (§7). Ownership follows the conversation, not the key: a marker resolves only
 * through the conversation it was written into.
 */
const mine = [logOutput(120, "alice-a"), logOutput(120, "alice-b"), logOutput(120, "alice-c")];
const theirs = [logOutput(120, "bob-a"), logOutput(120, "bob-b"), logOutput(120, "bob-c")];
const turn = (outputs: readonly string[], k: number) =>
  openaiBody([...outputs.slice(0, k), "x", "y"]);
const contents = (text: string) =>
  (JSON.parse(text) as { messages: { content: string | null }[] }).messages.map((m) => m.content);

async function rehydrate(app: ReturnType<typeof testApp>["app"], body: string) {
  const response = await app.request("/rehydrate", { method: "POST", body });
  return {
    text: await response.text(),
    unresolved: response.headers.get("x-context-guru-unresolved"),
  };
}

describe("ownership follows the conversation (§7, §10)", () => {
  it("a colliding tenant's /rehydrate leaves the other's marker unresolved", async () => {
    const { app } = testApp();
    const alice = await postCompact(app, turn(mine, 3), { headers: COLD });
    const aliceText = await alice.text();
    const masked = contents(aliceText)[3] as string;
    const [id] = markerIds(masked);
    expect(id).toBeDefined();

    // Bob's own conversation, one of whose outputs quotes Alice's masked output.
    const bobBody = openaiBody([theirs[0] as string, masked, "x", "y"]);
    const bob = await postCompact(app, bobBody, { headers: COLD });
    expect(bob.headers.get("x-context-guru-session")).toBe(
      alice.headers.get("x-context-guru-session"),
    );
    const back = await rehydrate(app, await bob.text());
    expect(back.text).not.toContain(mine[0]);
    expect(Number(back.unresolved)).toBeGreaterThanOrEqual(1);
    // Alice's own body still comes back whole.
    expect((await rehydrate(app, aliceText)).text).toBe(turn(mine, 3));
  });

  it("the same conversation resolves its markers on a later turn", async () => {
    const { app } = testApp();
    await postCompact(app, turn(mine, 3), { headers: COLD });
    const later = openaiBody([...mine, "x", "y", logOutput(80, "alice-d")]);
    const response = await postCompact(app, later);
    const text = await response.text();
    expect(response.headers.get("x-context-guru-cache")).toBe("warm");
    expect(markerIds(JSON.stringify(contents(text))).length).toBeGreaterThan(0);
    expect(await rehydrate(app, text)).toEqual({ text: later, unresolved: "0" });
  });
});
