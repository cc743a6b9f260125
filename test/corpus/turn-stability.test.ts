import { describe, expect, it } from "vitest";
import { markerIds } from "../../src/expand/markers.js";
import { scanBody } from "../../src/wire/json-scan.js";
import { postCompact, testApp } from "../support/app.js";
import { agentBodies, type CorpusBody, hasSharedCorpus } from "../support/shared-corpus.js";

/** The raw text of each element of `messages`. */
function messageTexts(text: string): string[] {
  return (scanBody(text)?.messages ?? []).map((span) => text.slice(span.start, span.end));
}

function checkpointPairs(): Array<[string, CorpusBody, CorpusBody]> {
  const bodies = hasSharedCorpus ? agentBodies() : [];
  const pairs: Array<[string, CorpusBody, CorpusBody]> = [];
  for (const body of bodies) {
    const next = bodies
      .filter(
        (other) =>
          other.session === body.session &&
          other.provider === body.provider &&
          other.turns > body.turns,
      )
      .sort((a, b) => a.turns - b.turns)[0];
    if (next) pairs.push([`${body.file} → ${next.file}`, body, next]);
  }
  return pairs;
}

describe.skipIf(!hasSharedCorpus)("byte stability across turns (reversible, agent preset)", () => {
  it.each(checkpointPairs())(
    "%s: a warm turn gives every already-sent message back byte for byte",
    async (_, earlier, later) => {
      const { app } = testApp();
      const session = { "x-context-guru-session": `turns-${earlier.session}-${earlier.provider}` };
      // The earlier checkpoint meets a cold cache (its head is decided), the later one a warm one.
      const cold = { headers: { ...session, "x-context-guru-cache": "cold" } };
      const first = messageTexts(await (await postCompact(app, earlier.body, cold)).text());
      const response = await postCompact(app, later.body, { headers: session });
      const second = messageTexts(await response.text());
      expect(response.headers.get("x-context-guru-cache")).toBe("warm");
      expect(second.slice(0, first.length)).toEqual(first);
      const reduced = first.filter((message) => markerIds(message).length > 0).length;
      if (earlier.turns > 3) expect(reduced).toBeGreaterThan(0);
    },
  );
});
