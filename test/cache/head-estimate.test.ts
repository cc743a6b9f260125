import { describe, expect, it } from "vitest";
import { headChange } from "../../src/cache/head-decision.js";
import {
  clearableAtMost,
  estimateHead,
  MASK_PLACEHOLDER_TOKENS,
  tokensPerChar,
} from "../../src/cache/head-estimate.js";
import { Replacements } from "../../src/cache/reach-back-estimate.js";
import { maskCalls } from "../../src/components/mask-calls.js";
import { components } from "../../src/components/registry.js";
import { parseConfig } from "../../src/config/load.js";
import type { Registry } from "../../src/pipeline/run.js";
import { TokenCounter } from "../../src/pipeline/tokens.js";
import { internDecision } from "../../src/session/ledger.js";
import { scanBody } from "../../src/wire/json-scan.js";
import { openaiChat } from "../../src/wire/shapes/openai-chat/index.js";
import { readTranscript, type Transcript } from "../../src/wire/transcript.js";

/** Mask keeping the newest three outputs, as these conversations are built around. */
const config = parseConfig({ components: { mask: { keep_recent: 3, working_set_tokens: 8000 } } });
const tokens = new TokenCounter();

/** A file read of `lines` numbered lines, distinct per `seed`. */
const fileRead = (seed: number, lines: number) =>
  Array.from(
    { length: lines },
    (_, line) => `${line + 1}\tvalue_${seed}_${line} = compute(${line})`,
  ).join("\n");

/**
 * An agent conversation of six tool calls and outputs: three old file reads (mask's candidates:
 * older than its newest three), the third call an edit whose arguments are long.
 */
function conversation(outputs: readonly string[], editArguments: string): string {
  const messages: unknown[] = [{ role: "user", content: "fix the failing test" }];
  for (const [index, output] of outputs.entries()) {
    const args = index === 2 ? editArguments : JSON.stringify({ path: `src/f${index}.py` });
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: `c${index}`, type: "function", function: { name: "Read", arguments: args } },
      ],
    });
    messages.push({ role: "tool", tool_call_id: `c${index}`, content: output });
  }
  return JSON.stringify({ model: "m", messages });
}

function transcriptOf(text: string): Transcript {
  const scan = scanBody(text);
  if (!scan) throw new Error("no scan");
  return readTranscript(openaiChat, (JSON.parse(text) as { messages: unknown[] }).messages, scan);
}

const messageTokens = (transcript: Transcript) =>
  transcript.strings.reduce((sum, item) => sum + tokens.estimate(item.text), 0);
const outputTokens = (transcript: Transcript) =>
  transcript.outputs.map((output) => tokens.estimate(output.text));

const received = [0, 1, 2, 3, 4, 5].map((seed) => fileRead(seed, 60));
const edit = JSON.stringify({ path: "src/f2.py", new_string: fileRead(99, 80) });
const masked = "[older tool output masked] <<cg:0123456789abcdef>>";

function estimate(text: string, texts: readonly string[], offloaded: readonly number[]) {
  const transcript = transcriptOf(text);
  const decisions = texts.map((_, index) =>
    internDecision(offloaded.includes(index) ? ["mask"] : []),
  );
  const warmText = conversation(texts, edit);
  const warmTokens = messageTokens(transcriptOf(warmText));
  const perChar = tokensPerChar(transcript, messageTokens(transcript));
  const head = estimateHead(
    {
      transcript,
      names: ["mask"],
      config,
      registry: components,
      tokens,
      received: outputTokens(transcript),
      perChar,
    },
    {
      texts: { output: texts, call: [] },
      decisions: { output: decisions, call: [] },
      tokens: warmTokens,
      length: warmText.length,
    },
  );
  return { head, perChar, warmText, warmTokens };
}

describe("what a re-decision of a warm head would re-write (§4a)", () => {
  it("counts the agent's tool calls after the first change, not only the outputs", () => {
    const text = conversation(received, edit);
    const { head, perChar, warmText, warmTokens } = estimate(text, received, []);
    // Masking outputs 0–2 changes the body from output 0 on: the edit's arguments are re-written.
    const cold = conversation([masked, masked, masked, ...received.slice(3)], edit);
    const real = headChange(
      { text: warmText, tokens: warmTokens },
      { text: cold, tokens: messageTokens(transcriptOf(cold)) },
      false,
      perChar,
    );
    const editTokens = tokens.count(edit);
    expect(head.suffix).toBeGreaterThan(head.tokens - tokens.count("fix the failing test"));
    expect(head.suffix - head.cleared).toBeGreaterThan(editTokens);
    expect(Math.abs(head.suffix - real.suffix)).toBeLessThan(0.02 * real.suffix);
  });

  it("places the first change in the warm body, whose earlier outputs came back shorter", () => {
    // Output 0 was masked by an earlier break; a re-decision would change output 1 on.
    const texts = [masked, ...received.slice(1)];
    const { head, perChar, warmText, warmTokens } = estimate(
      conversation(received, edit),
      texts,
      [0],
    );
    const cold = conversation([masked, masked, masked, ...received.slice(3)], edit);
    const real = headChange(
      { text: warmText, tokens: warmTokens },
      { text: cold, tokens: messageTokens(transcriptOf(cold)) },
      false,
      perChar,
    );
    expect(real.suffix).toBeGreaterThan(0);
    expect(Math.abs(head.suffix - real.suffix)).toBeLessThan(0.02 * real.suffix);
  });

  it("leaves the copy a duplicate points to, and counts an output a later offload reduced", async () => {
    // Output 4 repeats output 0 (dedup points to 0, which stays readable); output 1 was
    // shortened by cmdfilter, which runs after mask, so a re-decision masks it from before.
    const outputs = [received[0], received[1], received[2], received[3], received[0], received[5]];
    const text = conversation(outputs as string[], edit);
    const transcript = transcriptOf(text);
    const filtered = (received[1] as string).split("\n").slice(0, 10).join("\n");
    const texts = [outputs[0], filtered, outputs[2], outputs[3], "[identical]", outputs[5]];
    const decisions = [[], ["cmdfilter"], [], [], ["dedup"], []].map((names) =>
      internDecision(names as never),
    );
    const warmText = conversation(texts as string[], edit);
    const head = estimateHead(
      {
        transcript,
        names: ["dedup", "mask", "cmdfilter"],
        config,
        registry: components,
        tokens,
        received: outputTokens(transcript),
        perChar: tokensPerChar(transcript, messageTokens(transcript)),
      },
      {
        texts: { output: texts as string[], call: [] },
        decisions: { output: decisions, call: [] },
        tokens: messageTokens(transcriptOf(warmText)),
        length: warmText.length,
      },
    );
    expect(head.cleared).toBe(
      tokens.count(filtered) -
        MASK_PLACEHOLDER_TOKENS +
        tokens.count(received[2] as string) -
        MASK_PLACEHOLDER_TOKENS,
    );
  });
});

describe("the estimate follows mask's own rule (mask/selection.ts)", () => {
  /** Six calls and outputs: reads of a.py and b.py, an edit of a.py, then three newer reads. */
  const calls = [
    { name: "Read", args: { file_path: "src/a.py" } },
    { name: "Read", args: { file_path: "src/b.py" } },
    { name: "Edit", args: { file_path: "src/a.py", old_string: "x = 1", new_string: "x = 2" } },
    ...[3, 4, 5].map((seed) => ({ name: "Read", args: { file_path: `src/f${seed}.py` } })),
  ];
  const outputs = [
    received[0],
    received[1],
    "The file src/a.py has been updated.",
    ...received.slice(3),
  ];
  const body = (texts: readonly string[]) => {
    const messages: unknown[] = [{ role: "user", content: "fix the failing test" }];
    for (const [index, { name, args }] of calls.entries()) {
      const id = `c${index}`;
      const call = { id, type: "function", function: { name, arguments: JSON.stringify(args) } };
      messages.push({ role: "assistant", content: null, tool_calls: [call] });
      messages.push({ role: "tool", tool_call_id: id, content: texts[index] });
    }
    return JSON.stringify({ model: "m", messages });
  };
  const headOf = (texts: readonly string[], maskedBefore: readonly number[]) => {
    const transcript = transcriptOf(body(outputs as string[]));
    const warmText = body(texts);
    return estimateHead(
      {
        transcript,
        names: ["mask"],
        config,
        registry: components,
        tokens,
        received: outputTokens(transcript),
        perChar: tokensPerChar(transcript, messageTokens(transcript)),
      },
      {
        texts: { output: texts, call: [] },
        decisions: {
          output: texts.map((_, index) =>
            internDecision(maskedBefore.includes(index) ? ["mask"] : []),
          ),
          call: [],
        },
        tokens: messageTokens(transcriptOf(warmText)),
        length: warmText.length,
      },
    );
  };
  const [first, second] = outputTokens(transcriptOf(body(outputs as string[])));

  it("leaves the newest read of a file edited since out of what a re-decision clears", () => {
    expect(headOf(outputs as string[], []).cleared).toBe(second! - MASK_PLACEHOLDER_TOKENS);
  });

  it("counts an output masked before that the rule would give back", () => {
    const texts = [masked, ...outputs.slice(1)] as string[];
    expect(headOf(texts, [0]).cleared).toBe(second! - first!);
  });
});

describe("the most a re-decision could clear (§4a)", () => {
  it("counts every slot no reach-back component has cleared yet, as received", () => {
    const decisions = {
      output: [internDecision(["mask"]), internDecision(["collapse"]), internDecision([])],
      call: [internDecision(["mask_calls"]), internDecision([])],
    };
    const slotTokens = { output: [900, 400, 50], call: [300, 20] };
    expect(clearableAtMost(slotTokens, decisions)).toBe(400 + 50 + 20);
  });

  it("bounds the estimate: what it clears is never more", () => {
    const text = conversation(received, edit);
    const { head } = estimate(text, received, []);
    const transcript = transcriptOf(text);
    const none = { output: received.map(() => internDecision([])), call: [] };
    const most = clearableAtMost({ output: outputTokens(transcript), call: [] }, none);
    expect(head.cleared).toBeGreaterThan(0);
    expect(head.cleared).toBeLessThanOrEqual(most);
  });
});

describe("the estimate's replacements, remembered by text (cache/reach-back-estimate.ts)", () => {
  const texts = received.slice();
  const transcript = transcriptOf(conversation(texts, edit));
  const warmText = conversation(texts, edit);
  const counted = { calls: 0 };
  // mask_calls as registered, its reduce counted.
  const counting: typeof maskCalls = {
    ...maskCalls,
    reduce(call, options, context) {
      counted.calls++;
      return maskCalls.reduce(call, options, context);
    },
  };
  const registry: Registry = { ...components, mask_calls: counting };
  const estimate = (replacements: Replacements | undefined) =>
    estimateHead(
      {
        transcript,
        names: ["mask_calls"],
        config: parseConfig({ components: { mask_calls: { keep_recent: 1, min_tokens: 50 } } }),
        registry,
        tokens,
        received: outputTokens(transcript),
        perChar: tokensPerChar(transcript, messageTokens(transcript)),
        replacements,
      },
      {
        texts: { output: texts, call: transcript.slots.call.map((slot) => slot.text) },
        decisions: {
          output: texts.map(() => internDecision([])),
          call: transcript.slots.call.map(() => internDecision([])),
        },
        tokens: messageTokens(transcript),
        length: warmText.length,
      },
    );

  it("gives what the component gives, and asks it once a text", () => {
    const without = estimate(undefined);
    expect(without.cleared).toBeGreaterThan(0);
    const replacements = new Replacements(1 << 20);
    counted.calls = 0;
    expect(estimate(replacements)).toEqual(without);
    const asked = counted.calls;
    expect(asked).toBeGreaterThan(0);
    expect(estimate(replacements)).toEqual(without);
    expect(counted.calls).toBe(asked);
  });
});
