import type { RunResult } from "../pipeline/run.js";
import { applyEdits, type Edit } from "../wire/edit.js";
import { hasUnusualEscape } from "../wire/json-string.js";
import { replaceMessagesEdit } from "../wire/replace-messages.js";
import type { Slot } from "../wire/types.js";
import type { Passthrough } from "./options.js";
import type { ParsedRequest, Written } from "./turn.js";

/**
 * The request text with every changed output, and an accepted summary, written back in place
 * (§3: only the changed string values are rewritten); the spelling records that keep escapes
 * /rehydrate must restore; the tokens after. A body whose bytes cannot be rewritten safely
 * bails out and goes as it came.
 */
export function writeBack(request: ParsedRequest, run: RunResult): Written | { bail: Passthrough } {
  const { text, transcript, scan, shape, hash } = request;
  const edits: Edit[] = [];
  const messageEdits = new Map<number, Edit[]>();
  const spellings = new Map<string, { raw: string; messages: Set<number> }>();
  const changedLiterals: Array<{ text: string; raw: string }> = [];
  let saved = 0;
  for (const kind of ["output", "call"] as const) {
    const texts = run.texts[kind];
    for (const slot of transcript.slots[kind]) {
      const next = texts[slot.index];
      if (next === undefined || next === slot.text) continue;
      const { span } = slot;
      // The scanner and JSON.parse must agree on what stands there before a byte is replaced.
      const raw = text.slice(span.start, span.end);
      if (slot.literal === "string") {
        const spelled = spellingOf(slot, raw);
        if (spelled === "unlike") return { bail: "ambiguous_keys" };
        // A literal spelled with escapes JSON.stringify would not write (`\u003c`, `\u00e9`,
        // `\/`) is kept as written, so /rehydrate gives back the exact bytes.
        if (spelled === "own") {
          const textId = hash(slot.text);
          const known = spellings.get(textId);
          if (known) known.messages.add(slot.messageIndex);
          else spellings.set(textId, { raw, messages: new Set([slot.messageIndex]) });
        }
        changedLiterals.push({ text: slot.text, raw });
      } else if (raw !== slot.text) return { bail: "ambiguous_keys" };
      const edit = { span, raw: slot.literal === "string" ? JSON.stringify(next) : next };
      edits.push(edit);
      const inMessage = messageEdits.get(slot.messageIndex);
      if (inMessage) inMessage.push(edit);
      else messageEdits.set(slot.messageIndex, [edit]);
      saved += request.slotTokens[kind][slot.index] as number;
      saved -= request.tokens.estimate(next);
    }
  }
  // One spelling record per text: the same text written two ways in one body could not be
  // told apart on the way back, so such a body goes as it came.
  if (spellings.size > 0) {
    for (const { text: original, raw } of changedLiterals) {
      const spelled = spellings.get(hash(original));
      if (spelled !== undefined && spelled.raw !== raw) return { bail: "ambiguous_spelling" };
    }
  }
  let summary: Written["summary"];
  if (run.replacement && shape.summaryMessage) {
    // Outputs inside the replaced messages were left as received, so no edit overlaps this one.
    const { from, to, role, message } = run.replacement;
    const edit = replaceMessagesEdit(scan, from, to, shape.summaryMessage(role, message));
    if (edit) {
      edits.push(edit);
      saved += run.replacement.tokensBefore - run.replacement.tokensAfter;
      summary = { from, to, raw: edit.raw };
    }
  }
  return {
    text: edits.length === 0 ? text : applyEdits(text, edits),
    tokensAfter: request.tokensBefore - saved,
    spellings: Array.from(spellings, ([textId, { raw, messages }]) => ({
      key: { kind: "sp" as const, textId },
      value: raw,
      messages,
    })),
    summarized: summary !== undefined,
    summary,
    messageEdits,
  };
}

/**
 * How a string slot's literal `raw` spells its text: as JSON.stringify writes it (`plain`), with
 * escapes JSON.stringify would not write (`own`: kept as written), or not as JSON.parse reads it
 * (`unlike`: the scanner and the parse disagree). A literal without an escape JSON.stringify
 * would not write is spelled exactly as it writes its value, so it needs no second look. Read
 * once a slot: a slot of bytes a later request re-sends is the same slot (compact/read-memo.ts),
 * so its literal is not read again.
 */
function spellingOf(slot: Slot, raw: string): Spelling {
  const known = slotSpellings.get(slot);
  if (known !== undefined) return known;
  let spelled: Spelling = "plain";
  if (raw.length < slot.text.length + 2) spelled = "unlike";
  else if (hasUnusualEscape(raw)) {
    if (JSON.parse(raw) !== slot.text) spelled = "unlike";
    else if (raw !== JSON.stringify(slot.text)) spelled = "own";
  }
  slotSpellings.set(slot, spelled);
  return spelled;
}

type Spelling = "plain" | "own" | "unlike";
/** Each slot's spelling, for as long as the slot is held. */
const slotSpellings = new WeakMap<Slot, Spelling>();
