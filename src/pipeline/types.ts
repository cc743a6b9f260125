import type { ComponentName, ComponentsConfig, MarkerMode } from "../config/schema.js";
import type { AgentText } from "../wire/transcript.js";
import type { Provider, SlotKind, ToolOutput, Upstream } from "../wire/types.js";
import type { ModelCallReport } from "./report.js";

export type ComponentKind = "reformat" | "offload";

/** Options of component N as configured (defaults applied). */
export type OptionsOf<N extends ComponentName> = ComponentsConfig[N];

/** What the pipeline lends a component for one run. Components never stash or guard themselves. */
export interface ComponentContext {
  readonly provider: Provider;
  /** Every tool output of the request, as earlier components and replays left them. */
  readonly outputs: readonly ToolOutput[];
  /**
   * True when output `index` may take a new decision from this component: not already sent on a
   * warm request (§4a), not marked, not expanded, not reduced by an earlier offload, within the
   * trigger. The pipeline ignores changes to any other output.
   */
  mayChange(index: number): boolean;
  /** True when output `index` was reduced by an offload (it no longer reads as received). */
  wasOffloaded(index: number): boolean;
  /**
   * True on a request whose head may be re-decided (a cold cache, §4a); components that reach
   * back only run then, and a messages-scoped one reuses its earlier result otherwise.
   */
  readonly redecide: boolean;
  readonly messageCount: number;
  /** Text of the last user message: the agent's current goal. */
  readonly goal: string;
  /** The agent's own words: the text of its (assistant) messages, in message order. */
  readonly agentText: readonly AgentText[];
  /** Effective marker mode for this component (full degrades to off without a persisting store). */
  readonly mode: MarkerMode;
  /**
   * The marker token T (§6) for `original`, the exact text being replaced: `<<cg:HASH>>` in full
   * mode (the pipeline stashes `original` under HASH before the marker is written), `⟪cg⟫` in
   * summary mode, "" in off mode.
   */
  marker(original: string): string;
  /** The expand hint H (§5): ` [full output: call context_guru_expand]` in full mode, else "". */
  readonly hint: string;
  /** o200k_base tokens of `text`, memoised by content. */
  tokens(text: string): number;
  /** True when `text` has at least `limit` tokens; stops counting early. */
  atLeastTokens(text: string, limit: number): boolean;
  readonly signal: AbortSignal;
  /** The request being compacted, for LLM-backed components whose model is `source: incoming`. */
  readonly incoming?: IncomingRequest;
  /** Records a cheap-model call in this component's run report. */
  reportModelCall?(call: ModelCallReport): void;
}

/** What `source: incoming` reuses of the request being compacted: its model and credentials. */
export interface IncomingRequest {
  /** The API family the request is served by (a Responses body's is OpenAI's). */
  readonly provider: Upstream;
  readonly model?: string | undefined;
  /** Credential headers of the request (`authorization`, `x-api-key`, `api-key`, `anthropic-version`). */
  readonly headers: Readonly<Record<string, string>>;
  /** The configured upstream base URL of that provider. */
  readonly baseUrl?: string | undefined;
}

/** One replacement: tool output `index` becomes `text` (pointing to output `refersTo`, if set). */
export interface Change {
  readonly index: number;
  readonly text: string;
  readonly refersTo?: number | undefined;
}

interface ComponentBase<N extends ComponentName> {
  readonly name: N;
  readonly kind: ComponentKind;
  /**
   * True for a component that changes an output because of newer ones (mask, failed_run,
   * summaries). Its decisions are taken only when the head may be re-decided (§4a); on a warm
   * request the pipeline replays what it decided before and it does not run.
   */
  readonly reachesBack: boolean;
  /**
   * True for the component that bounds an output's size (collapse). When an earlier offload of
   * the run leaves an output over that bound, the pipeline composes the two (bound.ts): one
   * change, guarded once against the text before both, under the earlier offload's marker.
   */
  readonly bounds: boolean;
  /**
   * True for a component that reads an output line by line (extract, linecap, cmdfilter,
   * searchfold, extract_llm): its work grows with the output's lines as much as with its bytes,
   * so the pipeline does not offer it an output of more lines than it reads in time
   * (eligibility.ts); such an output is left to the bound. Absent: false.
   */
  readonly readsLines?: boolean;
  /**
   * The slots it takes (§3): tool outputs, or the arguments of the agent's calls (`mask_calls`).
   * Its context's `outputs` are those slots, by index among them. Absent: tool outputs.
   */
  readonly slots?: SlotKind;
}

/**
 * A component that decides each output on its own text (and its call): a pure function of
 * (output text, the call's tool name and shell command, options, mode), so the pipeline memoises
 * it across requests on exactly those. Returns the replacement, or undefined to leave the output
 * as it is.
 */
export interface OutputComponent<N extends ComponentName> extends ComponentBase<N> {
  readonly scope: "output";
  reduce(
    output: ToolOutput,
    options: OptionsOf<N>,
    context: ComponentContext,
  ): string | undefined | Promise<string | undefined>;
}

/** An output a request-scoped component picked, and the earlier output it points to, if any. */
export interface Selection {
  readonly index: number;
  /**
   * The output this one's replacement points to (dedup's "identical to an earlier tool output"):
   * the pipeline keeps the pointer only while that output stays readable (§5 Fidelity).
   */
  readonly refersTo?: number;
}

/**
 * A component that decides from the whole request which outputs to reduce (ordering,
 * duplicates, model calls): `select` picks them; `reduce` writes one picked output's
 * replacement from that output alone, so a decision recorded on one turn is replayed on the next
 * without selecting again.
 */
export interface RequestComponent<N extends ComponentName> extends ComponentBase<N> {
  readonly scope: "request";
  /**
   * True when its `reduce` reads only the slot's text (with its options and the marker it is
   * given), whatever else the request holds: a replacement is then the same wherever the text
   * stands, and what it saves is remembered by text (cache/reach-back-estimate.ts). Absent: false.
   */
  readonly reducesText?: boolean;
  select(
    options: OptionsOf<N>,
    context: ComponentContext,
  ): readonly Selection[] | Promise<readonly Selection[]>;
  /** The replacement, or undefined when this output can no longer be reduced as decided. */
  reduce(output: ToolOutput, options: OptionsOf<N>, context: ComponentContext): string | undefined;
}

/** One message of the request as a messages-scoped component sees it. */
export interface MessageView {
  readonly index: number;
  /** `role` as the message spells it ("" when it has none). */
  readonly role: string;
  /** What the model reads, rendered as text: content, tool calls as `call NAME(ARGS)`, results. */
  readonly text: string;
  /** Ids of the tool calls this message makes. */
  readonly callIds: readonly string[];
  /** Ids of the tool calls this message answers (OpenAI `tool_call_id`, Anthropic `tool_result`). */
  readonly resultIds: readonly string[];
}

/** The request's messages, for components that change message structure. */
export interface MessagesView {
  readonly messages: readonly MessageView[];
  /** The exact request text of messages[from..to): from the first one's `{` to the last one's `}`. */
  raw(from: number, to: number): string;
}

/**
 * messages[from..to) become one message with `role` and text `message`. In full mode `message`
 * must carry the marker of `view.raw(from, to)`: the pipeline stashes that raw JSON under it.
 */
export interface MessagesReplacement {
  readonly from: number;
  readonly to: number;
  readonly role: "user" | "assistant";
  readonly message: string;
}

/**
 * A component that replaces a run of whole messages (summaries). At most one per run applies.
 * It reaches back by nature; on a warm request it may only give back the replacement it made
 * before (`context.redecide` false).
 */
export interface MessagesComponent<N extends ComponentName> extends ComponentBase<N> {
  readonly scope: "messages";
  reduce(
    options: OptionsOf<N>,
    context: ComponentContext,
    view: MessagesView,
  ): MessagesReplacement | undefined | Promise<MessagesReplacement | undefined>;
}

export type Component<N extends ComponentName = ComponentName> =
  | OutputComponent<N>
  | RequestComponent<N>
  | MessagesComponent<N>;
