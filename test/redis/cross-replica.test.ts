import { describe, expect, it } from "vitest";
import { markerIds } from "../../src/expand/markers.js";
import { anthropicBody, openaiBody } from "../support/bodies.js";
import { agentBodies, hasSharedCorpus, REDUCED_PAST_TURNS } from "../support/shared-corpus.js";
import {
  compactOn,
  expandOn,
  generatedOutputs,
  redisSuiteSkipped,
  replicaPair,
} from "./replicas.js";

const skipped = redisSuiteSkipped("the cross-replica Redis tests");
const tools = [{ type: "function", function: { name: "Bash", parameters: {} } }];
const anthropicTools = [{ name: "Bash", input_schema: { type: "object" } }];

const generated = [
  { name: "openai", body: openaiBody(generatedOutputs("oa"), { tools }) },
  { name: "anthropic", body: anthropicBody(generatedOutputs("an"), { tools: anthropicTools }) },
];
const corpus = hasSharedCorpus && !skipped ? agentBodies() : [];

describe.skipIf(skipped)("two replicas sharing one Redis", () => {
  const pair = replicaPair();

  /** Compacts on A, then checks every marker and the rehydrated body on B. */
  async function roundTrip(body: string, session: string) {
    const compacted = await compactOn(pair.a, body, session);
    const expanded = await Promise.all(
      compacted.ids.map(async (id) => {
        const own = await expandOn(pair.b, id, session);
        const stranger = await expandOn(pair.b, id, `${session}-other`);
        return {
          status: own.status,
          hashed: pair.b.idOf(own.text) === id,
          stranger: stranger.status,
        };
      }),
    );
    const rehydrated = await pair.b.app.request("/rehydrate", {
      method: "POST",
      body: compacted.text,
      headers: { "x-context-guru-session": session },
    });
    return {
      compacted,
      expanded,
      rehydrated: {
        status: rehydrated.status,
        unresolved: rehydrated.headers.get("x-context-guru-unresolved"),
        text: await rehydrated.text(),
      },
    };
  }

  it.each(generated)(
    "$name: every marker A wrote expands on B for the session only; B rehydrates exactly",
    async ({ body, name }) => {
      const { compacted, expanded, rehydrated } = await roundTrip(body, `gen-${name}`);
      expect(compacted.status).toBe(200);
      expect(compacted.ids.length).toBeGreaterThan(0);
      expect(compacted.markersHeader).toBe(String(compacted.ids.length));
      expect(compacted.text).toContain("context_guru_expand");
      expect(expanded).toEqual(
        compacted.ids.map(() => ({ status: 200, hashed: true, stranger: 404 })),
      );
      expect(rehydrated).toEqual({ status: 200, unresolved: "0", text: body });
    },
  );

  it("a marker is not served to another session on either replica", async () => {
    const [body] = generated;
    const compacted = await compactOn(pair.a, body?.body ?? "", "owner");
    const id = compacted.ids[0] ?? "";
    const statuses = await Promise.all(
      [pair.a, pair.b].flatMap((r) => [expandOn(r, id, "owner"), expandOn(r, id, "intruder")]),
    );
    expect(statuses.map((response) => response.status)).toEqual([200, 404, 200, 404]);
  });

  it("rehydrate on B without the owning session leaves A's markers in place", async () => {
    const [body] = generated;
    const compacted = await compactOn(pair.a, body?.body ?? "", "holder");
    const response = await pair.b.app.request("/rehydrate", {
      method: "POST",
      body: compacted.text,
      headers: { "x-context-guru-session": "not-the-holder" },
    });
    expect(response.headers.get("x-context-guru-unresolved")).toBe(String(compacted.ids.length));
    expect(await response.text()).not.toBe(body?.body);
  });

  describe.skipIf(!hasSharedCorpus)("agent corpus", () => {
    it.each(corpus.map((entry) => [entry.file, entry] as const))(
      "%s: compact on A, expand and rehydrate on B",
      async (_, entry) => {
        const session = `corpus-${entry.session}-${entry.provider}`;
        const { compacted, expanded, rehydrated } = await roundTrip(entry.body, session);
        expect(compacted.status).toBe(200);
        expect(compacted.markersHeader).toBe(String(compacted.ids.length));
        if (entry.turns > REDUCED_PAST_TURNS) expect(compacted.ids.length).toBeGreaterThan(0);
        expect(expanded).toEqual(
          compacted.ids.map(() => ({ status: 200, hashed: true, stranger: 404 })),
        );
        // Some sessions read files that themselves contain marker text; those stay as they are.
        const foreign = markerIds(entry.body).length > 0;
        expect(rehydrated).toEqual({
          status: 200,
          unresolved: foreign ? rehydrated.unresolved : "0",
          text: entry.body,
        });
      },
    );
  });
});
