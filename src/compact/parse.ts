import { configuredPipeline, pipelineFor } from "../config/presets.js";
import type { ComponentName } from "../config/schema.js";
import { rememberLongTexts } from "../pipeline/hash-memo.js";
import { sessionKey } from "../session/key.js";
import { windowSessionKey } from "../session/prefix-key.js";
import { isRecord } from "../wire/is-record.js";
import { resumeScan, scanBody } from "../wire/json-scan.js";
import { resolveShape } from "../wire/provider-choice.js";
import { parseResumed } from "../wire/resume-parse.js";
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
  recall = true,
): ParsedRequest | CompactResult {
  const { config, memos } = context;
  // The messages a warm turn shares with the session's last request are parsed and read already.
  const readKey = windowSessionKey(text, options.session);
  let recalled = recall && readKey !== undefined ? memos.reads.recall(readKey, text) : undefined;
  let body: unknown = recalled && parseResumed(text, recalled.prior, recalled.shared);
  if (body === undefined) {
    recalled = undefined;
    try {
      body = JSON.parse(text);
    } catch {
      return passthrough(text, "openai", sessionKey(undefined, options.session), "not_json");
    }
  }
  if (!isRecord(body)) {
    return passthrough(text, "openai", sessionKey(undefined, options.session), "not_object");
  }
  const shape = resolveShape(options.provider ?? "auto", body);
  const session = sessionKey(body, options.session);
  const messages = body[shape.scan.conversation];
  if (!Array.isArray(messages)) return passthrough(text, shape.name, session, "no_messages");
  if (recalled?.prior.shape !== shape.name) recalled = undefined;
  const scan = recalled
    ? resumeScan(text, shape.scan, recalled.prior.scan, recalled.shared)
    : scanBody(text, shape.scan);
  if (!scan || scan.ambiguous) {
    // Keys that repeat are read as a whole parse reads them (the last of a member wins).
    if (recalled) return parseRequest(context, text, options, false);
    return passthrough(text, shape.name, session, "ambiguous_keys");
  }
  const read = readConversation(
    shape,
    messages,
    scan,
    memos.classes.of,
    recalled && { read: recalled.prior.read, shared: recalled.shared },
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
    readKey,
    recalled,
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
