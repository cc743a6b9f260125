import { classifyOutput } from "../content/classify.js";
import type { ContentClass } from "../content/content-class.js";
import type { BodyScan } from "./json-scan.js";
import type { WireShape } from "./shape.js";
import type { ContentString, ConversationStrings } from "./string-collector.js";
import type { Provider, Slot, SlotKind, ToolCall } from "./types.js";

/** The normalised view of a request (§3) that the pipeline works on. */
export interface Transcript {
  readonly provider: Provider;
  /** Every content string the model reads, in message order. */
  readonly strings: readonly ContentString[];
  /** The slots the pipeline may change, by kind: tool outputs, and the agent's calls. */
  readonly slots: Readonly<Record<SlotKind, readonly Slot[]>>;
  /** The tool outputs (`slots.output`). */
  readonly outputs: readonly Slot[];
  readonly messageCount: number;
  /** Text of the last user message that has text: the agent's current goal. */
  readonly goal: string;
  /** The agent's own words: the text of its (assistant) messages, in message order. */
  readonly agentText: readonly AgentText[];
}

/** A text the agent wrote itself, and the message that holds it. */
export interface AgentText {
  readonly messageIndex: number;
  readonly text: string;
}

/**
 * Builds the transcript of a scanned body of wire shape `shape`, classing its tool outputs by
 * `classify`. `messages` is the body's conversation array (`messages`, or a Responses body's
 * `input` items).
 */
export function readTranscript(
  shape: WireShape,
  messages: readonly unknown[],
  scan: BodyScan,
  classify: (text: string, call: ToolCall | undefined) => ContentClass = classifyOutput,
): Transcript {
  return readConversation(shape, messages, scan, classify).transcript;
}

/** A transcript and what its shape's reader found, as a later read of the same messages resumes. */
export interface ConversationRead {
  readonly transcript: Transcript;
  readonly found: ConversationStrings;
}

/**
 * readTranscript, and what the reader found; given `soFar`, an earlier read of a body whose first
 * `shared` messages are byte for byte these, those messages' strings and slots are taken from it
 * and only the rest are read: the same transcript a whole read gives.
 */
export function readConversation(
  shape: WireShape,
  messages: readonly unknown[],
  scan: BodyScan,
  classify: (text: string, call: ToolCall | undefined) => ContentClass,
  soFar?: { readonly read: ConversationRead; readonly shared: number },
): ConversationRead {
  const found = shape.strings(
    messages,
    scan,
    soFar && { found: soFar.read.found, shared: soFar.shared },
  );
  const from = soFar ? soFar.shared : 0;
  const outputs: Slot[] = soFar
    ? soFar.read.transcript.outputs.filter((output) => output.messageIndex < from)
    : [];
  for (const item of found.strings) {
    if (!item.tool || item.messageIndex < from) continue;
    outputs.push({
      kind: "output",
      index: outputs.length,
      messageIndex: item.messageIndex,
      span: item.span,
      literal: "string",
      text: item.text,
      call: item.tool.call,
      isError: item.tool.isError,
      contentClass: classify(item.text, item.tool.call),
    });
  }
  const results = new Set(outputs.map((output) => output.call?.id));
  const held = soFar?.read.transcript.slots.call ?? [];
  const calls: Slot[] = found.calls.map((item, index) => {
    const answered = results.has(item.call.id);
    const before = held[index];
    // A call read before is the same slot while its answer is.
    if (before !== undefined && item.messageIndex < from && before.answered === answered) {
      return before;
    }
    return {
      kind: "call",
      index,
      messageIndex: item.messageIndex,
      span: item.span,
      literal: item.literal,
      text: item.text,
      call: item.call,
      isError: false,
      contentClass: "text",
      answered,
    };
  });
  const transcript: Transcript = {
    provider: shape.name,
    strings: found.strings,
    goal: found.goal,
    agentText: found.strings.filter((item) => item.byAgent === true),
    slots: { output: outputs, call: calls },
    outputs,
    messageCount: messages.length,
  };
  return { transcript, found };
}
