import type { MarkerMode } from "../../src/config/schema.js";
import { classifyOutput } from "../../src/content/classify.js";
import { contentHasher, EXPAND_HINT, markerFor, SENTINEL } from "../../src/expand/markers.js";
import { TokenCounter } from "../../src/pipeline/tokens.js";
import type { ComponentContext } from "../../src/pipeline/types.js";
import type { ToolCall, ToolOutput } from "../../src/wire/types.js";

const counter = new TokenCounter();
const hash = contentHasher();

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

/** Tool outputs from texts, each produced by the given call (or none), classed as the transcript classes them. */
export function toolOutputs(
  items: ReadonlyArray<string | { text: string; call?: Partial<ToolCall>; isError?: boolean }>,
): ToolOutput[] {
  return items.map((item, index) => {
    const { text, call, isError } = typeof item === "string" ? { text: item } : item;
    const paired = call ? { id: `call_${index}`, name: "Bash", input: {}, ...call } : undefined;
    return {
      index,
      messageIndex: index * 2 + 2,
      text,
      call: paired,
      isError: isError ?? false,
      contentClass: classifyOutput(text, paired),
    };
  });
}

/** The content id markers use for `text` (plain SHA-256 prefix). */
export const idOf = hash;
