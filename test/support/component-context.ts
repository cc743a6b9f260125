import type { ComponentName, MarkerMode } from "../../src/config/schema.js";
import { classifyOutput } from "../../src/content/classify.js";
import { EXPAND_HINT, markerFor, SENTINEL } from "../../src/expand/markers.js";
import { TokenCounter } from "../../src/pipeline/tokens.js";
import type {
  Change,
  ComponentContext,
  OptionsOf,
  RequestComponent,
} from "../../src/pipeline/types.js";
import type { AgentText } from "../../src/wire/transcript.js";
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
  options: {
    mode?: MarkerMode;
    goal?: string;
    /** The agent's own texts (assistant messages), in message order. */
    agentText?: readonly AgentText[];
    /** Outputs the component may not change (already sent, marked, expanded). */
    fixed?: ReadonlySet<number>;
    /** Outputs an earlier offload reduced. */
    offloaded?: ReadonlySet<number>;
    /** Whether the head may be re-decided (default true: components that reach back run). */
    redecide?: boolean;
  } = {},
): FakeContext {
  const mode = options.mode ?? "full";
  const stashed = new Map<string, string>();
  return {
    provider: "openai",
    outputs,
    mayChange: (index) => !(options.fixed?.has(index) ?? false),
    wasOffloaded: (index) => options.offloaded?.has(index) ?? false,
    redecide: options.redecide ?? true,
    messageCount: outputs.length * 2 + 1,
    goal: options.goal ?? "",
    agentText: options.agentText ?? [],
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

/** The content id markers use for `text` (under the tests' fixed marker key). */
export const idOf = hash;

/** A request-scoped component's changes as the pipeline builds them: select, then reduce each. */
export async function requestChanges<N extends ComponentName>(
  component: RequestComponent<N>,
  options: OptionsOf<N>,
  context: ComponentContext,
): Promise<Change[]> {
  const changes: Change[] = [];
  for (const { index, refersTo } of await component.select(options, context)) {
    const output = context.outputs[index];
    if (!output) continue;
    const text = component.reduce(output, options, context);
    if (text === undefined) continue;
    changes.push(refersTo === undefined ? { index, text } : { index, text, refersTo });
  }
  return changes;
}
