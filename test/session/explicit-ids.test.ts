import { describe, expect, it } from "vitest";
import { rawMarkerIds } from "../../src/expand/markers.js";
import { explicitSessionKey, sessionKey } from "../../src/session/key.js";
import { postCompact, testApp } from "../support/app.js";
import { logOutput, openaiBody } from "../support/bodies.js";

/** Two tenants whose agents open alike (same system prompt and task): one derived key. */
const body = openaiBody([logOutput(120, "a"), logOutput(120, "b"), logOutput(120, "c"), "x", "y"]);
const ALICE = "alice@example.com";
const BOB = "bob@example.com";

async function compactAs(app: ReturnType<typeof testApp>["app"], session: string) {
  const response = await postCompact(app, body, {
    headers: { "x-context-guru-session": session, "x-context-guru-cache": "cold" },
  });
  const text = await response.text();
  // Markers in the messages (the expand tool's own description quotes the syntax).
  const { messages } = JSON.parse(text) as { messages: unknown };
  const ids = rawMarkerIds(JSON.stringify(messages));
  return { session: response.headers.get("x-context-guru-session"), text, ids };
}

describe("unusable explicit session ids get their own namespace, never the derived key", () => {
  it("alice@… and bob@… do not share a session on /compact, /expand or /rehydrate", async () => {
    const { app } = testApp();
    const alice = await compactAs(app, ALICE);
    expect(alice.ids.length).toBeGreaterThan(0);
    expect(alice.session).toBe(explicitSessionKey(ALICE));
    expect(alice.session).not.toBe(sessionKey(JSON.parse(body)));

    const id = alice.ids[0] as string;
    const expand = async (headers: Record<string, string>, query = "") =>
      (await app.request(`/expand?id=${id}${query}`, { headers })).status;
    expect({
      aliceHeader: await expand({ "x-context-guru-session": ALICE }),
      aliceQuery: await expand({}, `&session=${encodeURIComponent(ALICE)}`),
      aliceKey: await expand({ "x-context-guru-session": alice.session as string }),
      bob: await expand({ "x-context-guru-session": BOB }),
      derived: await expand({ "x-context-guru-session": sessionKey(JSON.parse(body)) }),
      none: await expand({}),
    }).toEqual({
      aliceHeader: 200,
      aliceQuery: 200,
      aliceKey: 200,
      bob: 404,
      derived: 404,
      none: 404,
    });

    const rehydrate = async (session: string) => {
      const response = await app.request("/rehydrate", {
        method: "POST",
        body: alice.text,
        headers: { "x-context-guru-session": session },
      });
      return {
        unresolved: response.headers.get("x-context-guru-unresolved"),
        text: await response.text(),
      };
    };
    expect(await rehydrate(ALICE)).toEqual({ unresolved: "0", text: body });
    const asBob = await rehydrate(BOB);
    expect(asBob.unresolved).toBe(String(new Set(alice.ids).size));
    expect(asBob.text).not.toContain(logOutput(120, "a"));
  });

  it("a body's metadata.user_id of tenant/A and tenant/B gives two sessions", async () => {
    const { app } = testApp();
    const withUser = (user: string) => {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      return JSON.stringify({ ...parsed, metadata: { user_id: user } });
    };
    const sessions = await Promise.all(
      ["tenant/A", "tenant/B", "z".repeat(200)].map(async (user) => {
        const response = await postCompact(app, withUser(user));
        await response.text();
        return response.headers.get("x-context-guru-session");
      }),
    );
    expect(new Set(sessions).size).toBe(3);
    expect(sessions).not.toContain(sessionKey(JSON.parse(body)));
  });
});
