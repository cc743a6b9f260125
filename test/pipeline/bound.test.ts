import { describe, expect, it } from "vitest";
import { markerIds } from "../../src/expand/markers.js";
import { CLEAN, postCompact, testApp } from "../support/app.js";
import { logOutput, openaiBody } from "../support/bodies.js";

/**
 * An output an earlier offload reduced but left over collapse's bound (§10 big bodies): a build
 * that compiled every unit twice keeps its first pass once extract drops the repeat — still far
 * over the bound. On a warm request (unknown history is warm: mask does not run) collapse is
 * composed onto extract's result, under extract's one marker, so the agent gets the head, the
 * tail and a note, and nothing is lost.
 */
type Body = { messages: Array<{ role: string; content: string | null }> };
const UNITS = 3000;
const pass = Array.from(
  { length: UNITS },
  (_, index) => `cc -O2 -Wall -c src/module-${index}/unit.c -o build/obj/module-${index}/unit.o`,
);
const huge = [
  "make[1]: Entering directory '/home/ci/work/engine/build'",
  ...pass,
  "make[1]: Leaving directory '/home/ci/work/engine/build'",
  "make[1]: Entering directory '/home/ci/work/engine/build'",
  ...pass,
  "src/module-2999/unit.c:7:1: error: unknown type name 'sizet'",
  "make[1]: *** [Makefile:12: all] Error 2",
].join("\n");
const ordinary = Array.from({ length: 4 }, (_, index) => logOutput(30, `step-${index}`));
const body = openaiBody([...ordinary, huge]);

function lastOutput(text: string): string {
  return (JSON.parse(text) as Body).messages.at(-1)?.content as string;
}

describe("an offload that leaves an output over collapse's bound, on a warm request", () => {
  it("is taken down to head and tail under the offload's one marker, and rehydrates exactly", async () => {
    const { app } = testApp();
    const response = await postCompact(app, body);
    expect(response.status).toBe(200);
    expect(response.headers.get("x-context-guru-cache")).toBe("warm");
    const returned = await response.text();
    const text = lastOutput(returned);
    const lines = text.split("\n");
    expect(lines.slice(0, 20)).toEqual(huge.split("\n").slice(0, 20));
    expect(text).toContain("lines omitted)");
    // The tail is extract's: the error and the make line it closes with, then extract's marker.
    expect(text).toContain("error: unknown type name 'sizet'");
    expect(text).toContain("make[1]: *** [Makefile:12: all] Error 2");
    expect(text.length).toBeLessThan(huge.length / 20);
    const ids = [...new Set(markerIds(text))];
    expect(ids).toHaveLength(1);
    const session = response.headers.get("x-context-guru-session") as string;
    const expanded = await app.request(`/expand?id=${ids[0]}&session=${session}`);
    expect(expanded.status).toBe(200);
    expect(await expanded.text()).toBe(huge);
    const back = await app.request("/rehydrate", { method: "POST", body: returned });
    expect(back.status).toBe(200);
    expect(await back.text()).toBe(body);
  });

  it("comes back byte for byte on the next turn", async () => {
    const { app } = testApp();
    const first = await (await postCompact(app, body)).text();
    expect(lastOutput(first)).toContain("lines omitted)");
    const sent = JSON.parse(body) as Body & Record<string, unknown>;
    sent.messages.push(
      { role: "assistant", content: "The build fails on a missing type." },
      { role: "user", content: "Fix it." },
    );
    const next = await postCompact(app, JSON.stringify(sent));
    expect(next.headers.get("x-context-guru-cache")).toBe("warm");
    const returned = JSON.parse(await next.text()) as Body;
    expect(returned.messages.at(-3)?.content).toBe(lastOutput(first));
  });

  it("is taken down to head and tail in clean mode, with no marker", async () => {
    const { app } = testApp(CLEAN);
    const text = lastOutput(await (await postCompact(app, body)).text());
    expect(text).toContain("lines omitted)");
    expect(text.length).toBeLessThan(huge.length / 20);
    expect(markerIds(text)).toEqual([]);
  });
});
