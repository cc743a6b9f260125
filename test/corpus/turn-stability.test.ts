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
    "%s: every message reduced earlier keeps its bytes",
    async (_, earlier, later) => {
      const { app } = testApp();
      const headers = { "x-context-guru-session": `turns-${earlier.session}-${earlier.provider}` };
      const first = messageTexts(await (await postCompact(app, earlier.body, { headers })).text());
      const second = messageTexts(await (await postCompact(app, later.body, { headers })).text());
      let reduced = 0;
      first.forEach((message, index) => {
        if (markerIds(message).length === 0) return;
        reduced++;
        expect(second[index]).toBe(message);
      });
      if (earlier.turns > 3) expect(reduced).toBeGreaterThan(0);
    },
  );
});
