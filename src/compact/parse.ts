import { configuredPipeline, pipelineFor } from "../config/presets.js";
import type { ComponentName } from "../config/schema.js";
import { rememberLongTexts } from "../pipeline/hash-memo.js";
import { sessionKey } from "../session/key.js";
import { isRecord } from "../wire/is-record.js";
import { resumeScan, scanBody } from "../wire/json-scan.js";
import { resolveShape } from "../wire/provider-choice.js";
import { readConversation } from "../wire/transcript.js";
import { passthrough } from "./answer.js";
import type { CompactOptions, CompactResult } from "./options.js";
import type { CompactContext, ParsedRequest } from "./turn.js";

/**
 * The first step: the body parsed once, its wire shape and session key, the spans of its
 * message strings (one linear scan, §3), its transcript, the components to run, and the tokens
 * of every string and slot as received (each counted once a request: the slots' counts serve the
 * head estimate, the guards of their changes and the written-back total). A body that cannot be
 * compacted is its own answer, unchanged.
 */
export function parseRequest(
  context: CompactContext,
  text: string,
  options: CompactOptions,
): ParsedRequest | CompactResult {
  const { config, memos } = context;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return passthrough(text, "openai", sessionKey(undefined, options.session), "not_json");
  }
  if (!isRecord(body)) {
    return passthrough(text, "openai", sessionKey(undefined, options.session), "not_object");
  }
  const shape = resolveShape(options.provider ?? "auto", body);
  const session = sessionKey(body, options.session);
  const messages = body[shape.scan.conversation];
  if (!Array.isArray(messages)) return passthrough(text, shape.name, session, "no_messages");
  // The messages a warm turn shares with the session's last request are read already.
  const recalled = memos.reads.recall(session, shape.name, text);
  const resumed = recalled && resumeScan(text, shape.scan, recalled.prior.scan, recalled.shared);
  const scan = resumed ?? scanBody(text, shape.scan);
  if (!scan || scan.ambiguous) return passthrough(text, shape.name, session, "ambiguous_keys");
  const read = readConversation(
    shape,
    messages,
    scan,
    memos.classes.of,
    resumed && recalled && { read: recalled.prior.read, shared: recalled.shared },
  );
  const { transcript } = read;
  const requested = options.pipeline ?? (options.preset ? undefined : config.pipeline);
  const names: readonly ComponentName[] | undefined =
    options.pipeline || options.preset
      ? pipelineFor(requested, options.preset ?? config.preset)
      : configuredPipeline(config);
  const counter = memos.tokens.forRequest();
  let tokensBefore = 0;
  const output: number[] = [];
  for (const item of transcript.strings) {
    const tokens = counter.receive(item.text);
    tokensBefore += tokens;
    if (item.tool) output.push(tokens);
  }
  // The agent's calls are read too: their arguments count with the rest.
  const call = transcript.slots.call.map((slot) => counter.receive(slot.text));
  for (const tokens of call) tokensBefore += tokens;
  return {
    text,
    body,
    messages,
    scan,
    read,
    recalled: resumed ? recalled : undefined,
    transcript,
    shape,
    session,
    names: names ?? configuredPipeline(config),
    pipelineFallback: names === undefined,
    tokensBefore,
    slotTokens: { output, call },
    hash: rememberLongTexts(memos.hash, memos.longChars),
    tokens: counter,
    options,
  };
}
