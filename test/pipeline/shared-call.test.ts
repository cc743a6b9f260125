import { describe, expect, it } from "vitest";
import { Compactor } from "../../src/compact/compactor.js";
import { components } from "../../src/components/registry.js";
import { parseConfig } from "../../src/config/load.js";
import { createStore } from "../../src/store/create.js";
import { CLEAN, withoutDeadline } from "../support/app.js";
import { TEST_HASH_KEY } from "../support/hash-key.js";

/**
 * Many outputs of one call with a long command (an agent's tool messages all answering one
 * `tool_call_id`): the command is read once for the call, not once an output, and the memo keys
 * the call by a digest of it. Reading it for every output took minutes (quadratic in the body).
 */
const COMMAND = `git status ${"-- ".repeat(200_000)}`;
const OUTPUTS = 5_000;

function body(outputs: string[], extra: string[] = []): string {
  const call = { name: "bash", arguments: JSON.stringify({ command: COMMAND }) };
  return JSON.stringify({
    model: "m",
    messages: [
      { role: "user", content: "go" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c", type: "function", function: call }],
      },
      ...outputs.map((content) => ({ role: "tool", tool_call_id: "c", content })),
      ...extra.map((content) => ({ role: "user", content })),
    ],
  });
}

const hint = '  (use "git push" to publish your local commits)';
const statuses = Array.from({ length: OUTPUTS }, (_, i) => `On branch b${i}\n${hint}\n`);
const filtered = statuses.map((_, i) => `On branch b${i}\n\u2026 (1 git hint)\n`);

describe("outputs sharing a call with a long command", () => {
  it("are each filtered by the command, on the first request and from the memo on the next", async () => {
    const config = parseConfig(
      withoutDeadline({
        ...CLEAN,
        pipeline: ["textclean", "cmdfilter", "linecap", "searchfold", "extract"],
        components: { cmdfilter: { min_tokens: 0 } },
      }),
    );
    const store = createStore(config.store);
    const compactor = new Compactor({
      config,
      store,
      registry: components,
      hashKey: TEST_HASH_KEY,
    });
    const first = await compactor.compact(body(statuses), { cache: "cold" });
    expect(first.text).toBe(body(filtered));
    // A new body holding the same call: the memo answers each output by the call's digest.
    const next = await compactor.compact(body(statuses, ["more"]), { cache: "cold" });
    expect(next.text).toBe(body(filtered, ["more"]));
  });
});
