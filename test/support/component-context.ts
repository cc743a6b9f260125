import type { MarkerMode } from "../../src/config/schema.js";
import { EXPAND_HINT, markerFor, SENTINEL } from "../../src/expand/markers.js";
import { TokenCounter } from "../../src/pipeline/tokens.js";
import type { ComponentContext } from "../../src/pipeline/types.js";
import type { ToolCall, ToolOutput } from "../../src/wire/types.js";
import { testIdOf } from "./hash-key.js";

const counter = new TokenCounter();
const hash = testIdOf;

export interface FakeContext extends ComponentContext {
  /** Originals the component asked to stash, by id (full mode). */
  readonly stashed: Map<string, string>;
}

/** A component context with real token counting and real marker ids, for unit tests. */
export function fakeContext(
  outputs: readonly ToolOutput[],
  options: { mode?: MarkerMode; goal?: string; reduced?: ReadonlySet<string> } = {},
): FakeContext {
  const mode = options.mode ?? "full";
  const stashed = new Map<string, string>();
  return {
    provider: "openai",
    outputs,
    messageCount: outputs.length * 2 + 1,
    goal: options.goal ?? "",
    mode,
    stashed,
    hint: mode === "full" ? EXPAND_HINT : "",
    marker(original) {
      if (mode === "off") return "";
      if (mode === "summary") return SENTINEL;
      const id = hash(original);
      stashed.set(id, original);
      return markerFor(id);
    },
    tokens: (text) => counter.count(text),
    atLeastTokens: (text, limit) => counter.atLeast(text, limit),
    wasReduced: (text) => options.reduced?.has(text) ?? false,
    signal: new AbortController().signal,
  };
}

/** Tool outputs from texts, each produced by the given call (or none). */
export function toolOutputs(
  items: ReadonlyArray<string | { text: string; call?: Partial<ToolCall>; isError?: boolean }>,
): ToolOutput[] {
  return items.map((item, index) => {
    const { text, call, isError } = typeof item === "string" ? { text: item } : item;
    return {
      index,
      messageIndex: index * 2 + 2,
      text,
      call: call ? { id: `call_${index}`, name: "Bash", input: {}, ...call } : undefined,
      isError: isError ?? false,
    };
  });
}

/** The content id markers use for `text` (under the tests' fixed marker key). */
export const idOf = hash;
