import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app.js";
import { loadConfig } from "../../src/config/load.js";
import { EXPAND_HINT, markerIds } from "../../src/expand/markers.js";
import { EXPAND_TOOL_NAME } from "../../src/expand/tool.js";
import { createStore } from "../../src/store/create.js";
import { agentBodies, hasSharedCorpus } from "../support/shared-corpus.js";

/**
 * The llm-d side posts bodies the way its published clients build them (§0): the coordinator's
 * Go client sends `{model, messages, tools}` through encoding/json (which writes `<`, `>` and
 * `&` as \u003c, \u003e, \u0026); the Responses-API gateway sends `{model, messages}` only and
 * keeps what it gets back as its history. In every shipped config, a body must come back with no
 * marker that nobody can redeem: a marker only where the expand tool is there to redeem it.
 */
const ROOT = resolve(import.meta.dirname, "../..");
const CONFIGS = readdirSync(join(ROOT, "configs")).filter((name) => name.endsWith(".yaml"));

/** `value` as Go's encoding/json writes it. */
function goJson(value: unknown): string {
  return JSON.stringify(value)
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("&", "\\u0026");
}

const bodies = hasSharedCorpus
  ? agentBodies().filter((entry) => entry.provider === "openai" && entry.turns >= 3)
  : [];

function appFor(name: string) {
  const config = loadConfig({ file: join(ROOT, "configs", name) });
  // The Redis config's decisions do not depend on where originals live: keep them in memory.
  const store = createStore({ ...config.store, backend: "memory" });
  return createApp({ config, store });
}

describe.skipIf(!hasSharedCorpus)("bodies as the published llm-d clients send them", () => {
  it.each(CONFIGS)("%s: no marker without an expand tool to redeem it", async (name) => {
    const app = appFor(name);
    let checked = 0;
    for (const [index, entry] of bodies.entries()) {
      const parsed = JSON.parse(entry.body) as { model: string; messages: unknown; tools: unknown };
      const shapes = {
        coordinator: goJson({
          model: parsed.model,
          messages: parsed.messages,
          tools: parsed.tools,
        }),
        gateway: goJson({ model: parsed.model, messages: parsed.messages }),
      };
      for (const [client, body] of Object.entries(shapes)) {
        for (const cache of ["warm", "cold"]) {
          const response = await app.request("/compact", {
            method: "POST",
            body,
            headers: {
              "content-type": "application/json",
              "x-context-guru-session": `${name}-${client}-${cache}-${index}`,
              "x-context-guru-cache": cache,
            },
          });
          expect(response.status).toBe(200);
          const out = JSON.parse(await response.text()) as {
            messages: unknown;
            tools?: { function?: { name?: string } }[];
          };
          const own = markerIds(JSON.stringify(out.messages)).filter(
            (id) => !markerIds(entry.body).includes(id),
          );
          const tool = (out.tools ?? []).some((item) => item.function?.name === EXPAND_TOOL_NAME);
          const where = `${name} ${client} ${cache} ${entry.file}`;
          if (own.length > 0) expect(tool, where).toBe(true);
          if (client === "gateway") {
            expect(own, where).toEqual([]);
            // No hint to call a tool that is not there (the corpus quotes the tool's name itself).
            const hints = (text: string) => text.split(EXPAND_HINT).length;
            expect(hints(JSON.stringify(out.messages)), where).toBe(hints(entry.body));
          }
          checked++;
        }
      }
    }
    expect(checked).toBe(bodies.length * 4);
  });
});
