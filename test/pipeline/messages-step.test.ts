import { describe, expect, it } from "vitest";
import { Compactor } from "../../src/compact/compactor.js";
import { mask } from "../../src/components/mask.js";
import { parseConfig } from "../../src/config/load.js";
import type { Registry } from "../../src/pipeline/run.js";
import type {
  ComponentContext,
  MessagesComponent,
  MessagesReplacement,
  MessagesView,
} from "../../src/pipeline/types.js";
import { rehydrate } from "../../src/rehydrate.js";
import { createStore } from "../../src/store/create.js";
import { OPENAI_EXPAND_TOOL } from "../../src/wire/shapes/openai-chat/expand.js";
import { idOf } from "../support/component-context.js";
import { TEST_HASH_KEY } from "../support/hash-key.js";

const output = (label: string) =>
  Array.from({ length: 40 }, (_, line) => `${label} ${line}: lorem ipsum dolor sit amet`).join(
    "\n",
  );

/** system, task, three tool rounds, a closing question. */
function body(extra: { marked?: boolean } = {}): string {
  const messages: unknown[] = [
    { role: "system", content: "You are a coding agent." },
    { role: "user", content: "Fix it." },
  ];
  for (const id of ["a", "b", "c"]) {
    messages.push(
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id, type: "function", function: { name: "Bash", arguments: "{}" } }],
      },
      {
        role: "tool",
        tool_call_id: id,
        content: extra.marked && id === "a" ? `${output(id)} <<cg:0123456789abcdef>>` : output(id),
      },
    );
  }
  messages.push({ role: "user", content: "Go on." });
  return JSON.stringify({ messages, tools: TOOLS });
}

/** The agent's own tool: the model can call tools, so full markers can be expanded (§8.1). */
const TOOLS = [{ type: "function", function: { name: "Bash", parameters: { type: "object" } } }];

/** A messages component that proposes `make(view, context)`. */
function fixed(
  make: (view: MessagesView, context: ComponentContext) => MessagesReplacement | undefined,
): MessagesComponent<"summarize"> {
  return {
    name: "summarize",
    kind: "offload",
    scope: "messages",
    reachesBack: true,
    bounds: false,
    reduce: (_options, context, view) => make(view, context),
  };
}

async function compact(registry: Registry, text: string, pipeline = ["summarize"]) {
  const config = parseConfig({
    pipeline,
    components: { mask: { keep_recent: 0 } },
  });
  const store = createStore(config.store);
  const compactor = new Compactor({ config, store, registry, hashKey: TEST_HASH_KEY });
  // Summaries reach back: they are decided on a request whose head may be re-decided (§4a).
  const result = await compactor.compact(text, { cache: "cold" });
  return { result, store, compactor };
}

describe("message replacement guards", () => {
  it.each<[string, Parameters<typeof fixed>[0], string, string]>([
    [
      "an empty range",
      (_, context) => ({ from: 4, to: 4, role: "user", message: context.marker("x") }),
      "touched_protected_output",
      "invalid replacement of messages 4..4",
    ],
    [
      "a range past the end",
      (_, context) => ({ from: 2, to: 99, role: "user", message: context.marker("x") }),
      "touched_protected_output",
      "invalid replacement of messages 2..99",
    ],
    [
      "a marker for other text",
      (_, context) => ({ from: 2, to: 6, role: "user", message: `s ${context.marker("other")}` }),
      "no_cache_key",
      "messages 2..6 were replaced without a marker",
    ],
    [
      "no marker at all",
      () => ({ from: 2, to: 6, role: "user", message: "summary" }),
      "no_cache_key",
      "messages 2..6 were replaced without a marker",
    ],
  ])("reverts %s and leaves the body unchanged", async (_, make, reason, detail) => {
    const text = body();
    const { result } = await compact({ summarize: fixed(make) }, text);
    expect(result.text).toBe(text);
    expect(result.report?.components[0]?.reverted).toEqual({ reason, detail });
  });

  it("reverts a replacement over content that already carries a marker", async () => {
    const text = body({ marked: true });
    const { result } = await compact(
      {
        summarize: fixed((view, context) => ({
          from: 2,
          to: 6,
          role: "user",
          message: `s ${context.marker(view.raw(2, 6))}`,
        })),
      },
      text,
    );
    expect(result.text).toBe(text);
    expect(result.report?.components[0]?.reverted).toEqual({
      reason: "touched_protected_output",
      detail: "message 3 carries a marker",
    });
  });

  it("reverts a component that throws", async () => {
    const text = body();
    const { result } = await compact(
      {
        summarize: fixed(() => {
          throw new Error("boom");
        }),
      },
      text,
    );
    expect(result.text).toBe(text);
    expect(result.report?.components[0]?.reverted).toEqual({ reason: "threw", detail: "boom" });
  });

  it("drops the edits of earlier components inside the span and keeps those outside", async () => {
    const text = body();
    const messages = (JSON.parse(text) as { messages: unknown[] }).messages;
    const span = messages
      .slice(2, 6)
      .map((message) => JSON.stringify(message))
      .join(",");
    const { result, store, compactor } = await compact(
      {
        mask,
        summarize: fixed((view, context) => ({
          from: 2,
          to: 6,
          role: "user",
          message: `summary ${context.marker(view.raw(2, 6))}`,
        })),
      },
      text,
      ["mask", "summarize", "mask"],
    );
    const masked = `[older tool output masked: ${output("c").split("\n")[0]}] <<cg:${idOf(output("c"))}>> [full output: call context_guru_expand]`;
    expect(result.text).toBe(
      JSON.stringify({
        messages: [
          ...messages.slice(0, 2),
          { role: "user", content: `summary <<cg:${idOf(span)}>>` },
          messages[6],
          { role: "tool", tool_call_id: "c", content: masked },
          messages[8],
        ],
        tools: [...TOOLS, OPENAI_EXPAND_TOOL],
      }),
    );
    expect(result.report?.components.map((entry) => entry.changed)).toEqual([3, 1, 0]);
    const back = await rehydrate(result.text, store, compactor.hash, { session: result.session });
    expect(back.text).toBe(text);
  });
});
