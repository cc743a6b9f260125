import fc from "fast-check";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { describe, expect, it } from "vitest";
import { LONGEST_TOKEN_BYTES, minimumPieces } from "../../src/pipeline/token-bounds.js";
import { countO200k, TokenCounter } from "../../src/pipeline/tokens.js";
import { CLEAN, postCompact, testApp } from "../support/app.js";
import { jsonArrayOutput, logOutput, openaiBody } from "../support/bodies.js";

/**
 * Token counting (§4): exact o200k_base counts for every ordinary text, and bounded time for the
 * texts byte-pair merging is quadratic on (one very long run of a single character class).
 */
const WORDS = ["error", " ", "\n", "é", "😀", "42", "::", "\t", "Ünïcödé", "=", "-", "ab", "\r\n"];

describe("countO200k", () => {
  it("is the exact o200k count for texts without a run of 256 letters, symbols or spaces", () => {
    const ordinary = fc
      .array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 40 })), {
        maxLength: 300,
      })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(ordinary, (text) => {
        expect(countO200k(text)).toBe(countTokens(text));
      }),
      { numRuns: 300 },
    );
  });

  it("is exact for real tool outputs and for runs just under the cut", () => {
    for (const text of [
      logOutput(400),
      jsonArrayOutput(200),
      `${"a".repeat(255)} ${"=".repeat(255)}\n${" ".repeat(255)}x`,
    ]) {
      expect(countO200k(text)).toBe(countTokens(text));
    }
  });

  it.each([
    ["letters", "a"],
    ["alternating letters", "ab"],
    ["symbols", "="],
    ["spaces", " "],
    ["emoji (surrogate pairs)", "😀"],
    ["combining marks", "e\u0301"],
  ])("stays within a token per 256 characters of exact on long runs of %s", (_name, unit) => {
    for (const length of [256, 300, 1000, 2600]) {
      const text = `start ${unit.repeat(Math.ceil(length / unit.length))} end`;
      const exact = countTokens(text);
      expect(Math.abs(countO200k(text) - exact)).toBeLessThanOrEqual(Math.ceil(text.length / 256));
    }
  });

  it("never splits a surrogate pair", () => {
    // An odd offset puts a cut between the halves of a pair unless it is moved.
    const text = `x${"😀".repeat(600)}`;
    expect(countO200k(text)).toBe(countTokens(text));
  });

  it.each([
    ["letters", "A"],
    ["symbols", "="],
    ["spaces", " "],
    ["newlines", "\n"],
    ["CJK letters", "中"],
    ["combining marks", "\u0301"],
    ["alternating letters", "ab"],
  ])("counts a 5.6M-character run of %s without overflowing the stack", (_name, unit) => {
    const text = unit.repeat(Math.ceil(5_600_000 / unit.length));
    const counted = countO200k(text);
    expect(counted).toBeGreaterThan(text.length / 256);
    expect(counted).toBeLessThanOrEqual(text.length);
  });

  it("counts a megabyte of one letter (exact byte-pair merging would take hours)", () => {
    const counter = new TokenCounter();
    const text = "A".repeat(1024 * 1024);
    expect(counter.count(text)).toBeGreaterThan(0);
    expect(counter.atLeast(text, 1000)).toBe(true);
  });
});

describe("countO200k on long and unusual texts", () => {
  const PLAIN = { disallowedSpecial: new Set<string>() };

  it("counts the spelling of a special token as text, as a model server reads message content", () => {
    const text = "the tokenizer emits <|endoftext|> and <|im_start|> between documents";
    expect(countO200k(text)).toBe(countTokens(text, PLAIN));
    expect(new TokenCounter().count(`${text}\n`.repeat(3000))).toBeGreaterThan(0);
  });

  /** Texts of several shapes, each longer than one counted part. */
  const shapes: Array<[string, string]> = [
    ["a build log", logOutput(2500)],
    ["a JSON document", jsonArrayOutput(1500)],
    [
      "base64 on one line",
      Array.from({ length: 90_000 }, (_, at) => "QWxhZGRpbjpvcGVu+/9Z"[(at * 7) % 20]).join(""),
    ],
    [
      "a coloured log with CRLF and redraws",
      Array.from(
        { length: 3000 },
        (_, line) => `\u001b[32m${line}%\u001b[0m it's é\u0301\r${line}\r\n`,
      ).join(""),
    ],
    ["text and emoji", Array.from({ length: 9000 }, (_, at) => `ab${at}😀 中文 'x' `).join("")],
  ];

  it.each(shapes)("counts %s in parts exactly as a whole", (_name, text) => {
    expect(text.length).toBeGreaterThan(40 * 1024);
    expect(countO200k(text)).toBe(countTokens(text, PLAIN));
  });

  it("never lets the tokenizer's merge cache fill (it evicts by a scan that turns quadratic)", async () => {
    const tokenizer = (await import("gpt-tokenizer/encoding/o200k_base")).default as unknown as {
      bytePairEncodingCoreProcessor: { mergeCache?: Map<string, unknown>; mergeCacheSize: number };
    };
    const core = tokenizer.bytePairEncodingCoreProcessor;
    // Distinct pieces outside the vocabulary: a million characters of pseudo-random base64.
    let state = 7;
    const blob = Array.from({ length: 1_000_000 }, () => {
      // xorshift32: every bit of the state varies, so pieces rarely repeat.
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      return "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"[(state >>> 0) % 64];
    }).join("");
    countO200k(blob);
    expect(core.mergeCache).toBeDefined();
    expect(core.mergeCache?.size ?? 0).toBeGreaterThan(0);
    expect(core.mergeCache?.size ?? Number.POSITIVE_INFINITY).toBeLessThan(core.mergeCacheSize);
  });
});

describe("TokenCounter.atLeast", () => {
  /** A counter whose exact counts are counted. */
  function spied() {
    const counted: number[] = [];
    const counter = new TokenCounter(1024 * 1024, (text) => {
      counted.push(text.length);
      return countO200k(text);
    });
    return { counter, counted };
  }

  it("answers from the lower bound, without counting, a text well over the limit", () => {
    // An earlier component's result of twenty thousand characters, asked about a limit of 500.
    const { counter, counted } = spied();
    const text = logOutput(200);
    expect(text.length).toBeGreaterThan(10_000);
    expect(counter.atLeast(text, 500)).toBe(true);
    expect(counted).toEqual([]);
  });

  it("counts a text the bound cannot decide, once, and answers from that count after", () => {
    const { counter, counted } = spied();
    const text = logOutput(40);
    const tokens = countO200k(text);
    expect(counter.atLeast(text, tokens)).toBe(true);
    expect(counter.atLeast(text, tokens + 1)).toBe(false);
    expect(counter.count(text)).toBe(tokens);
    expect(counted).toEqual([text.length]);
  });

  it("answers as the exact count does", () => {
    const { counter } = spied();
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...WORDS), { maxLength: 400 }).map((parts) => parts.join("")),
        fc.integer({ min: 0, max: 600 }),
        (text, limit) => {
          expect(counter.atLeast(text, limit)).toBe(countTokens(text) >= limit);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("TokenCounter.forRequest", () => {
  /** Outputs of a body larger than the memo holds: fifty of about 1,600 characters against 8,000. */
  const outputs = Array.from({ length: 50 }, (_, index) => `line ${index} of output\n`.repeat(90));
  /** Characters of the first twenty outputs. */
  const budget = outputs.slice(0, 20).reduce((chars, text) => chars + text.length, 0);

  it("counts each received output once a request, however little the memo holds", () => {
    const counted: string[] = [];
    const shared = new TokenCounter(8_000, (text) => {
      counted.push(text);
      return countO200k(text);
    });
    const request = shared.forRequest();
    const received = outputs.map((text) => request.receive(text));
    expect(counted).toHaveLength(outputs.length);
    // The guard of each output's change asks again: answered from what was received.
    for (const [index, text] of outputs.entries()) {
      expect(request.compare(text, "[masked]").before).toBe(received[index]);
      expect(request.atLeast(text, (received[index] as number) + 1)).toBe(false);
    }
    expect(counted.filter((text) => text !== "[masked]")).toHaveLength(outputs.length);
    // The memo alone has let the first outputs go: the counter shared by requests counts again.
    shared.count(outputs[0] as string);
    expect(counted.filter((text) => text === outputs[0])).toHaveLength(2);
  });

  it("past its budget of exact counts, estimates what it receives and guards from bounds", () => {
    const counted: string[] = [];
    const shared = new TokenCounter(1024 * 1024, (text) => {
      counted.push(text);
      return countO200k(text);
    });
    // Twenty outputs fit the budget; the thirty after them are estimated.
    const request = shared.forRequest(budget);
    const received = outputs.map((text) => request.receive(text));
    expect(counted).toEqual(outputs.slice(0, 20));
    for (const [index, text] of outputs.entries()) {
      const tokens = received[index] as number;
      const exact = countO200k(text);
      if (index < 20) expect(tokens).toBe(exact);
      // Scaled from the tokens per character counted: these logs are alike.
      else expect(Math.abs(tokens - exact) / exact).toBeLessThan(0.1);
    }
    // The mask of an estimated output is decided from its bounds: it is not counted.
    const masked = request.compare(outputs[30] as string, "[older tool output masked]");
    expect(masked).toEqual({
      before: received[30],
      after: countO200k("[older tool output masked]"),
      fewer: true,
    });
    expect(counted).not.toContain(outputs[30]);
    // A change the bounds cannot decide is counted, as ever.
    const same = request.compare(outputs[31] as string, outputs[31] as string);
    expect(same.fewer).toBe(false);
    expect(same.before).toBe(countO200k(outputs[31] as string));
  });

  it("spends its budget whatever the memo holds: the same counts whoever came before", () => {
    const shared = new TokenCounter();
    const first = outputs.map((text) => shared.forRequest(budget).receive(text));
    // Every output is in the memo now; a request of them all still estimates past its budget.
    const request = shared.forRequest(budget);
    const again = outputs.map((text) => request.receive(text));
    const alone = new TokenCounter().forRequest(budget);
    expect(again).toEqual(outputs.map((text) => alone.receive(text)));
    expect(again.slice(0, 20)).toEqual(first.slice(0, 20));
  });

  it("shares the memo between requests: the next one counts nothing it re-sends", () => {
    const counted: string[] = [];
    const shared = new TokenCounter(1024 * 1024, (text) => {
      counted.push(text);
      return countO200k(text);
    });
    for (const text of outputs.slice(0, 5)) shared.forRequest().receive(text);
    const next = shared.forRequest();
    for (const text of outputs.slice(0, 5)) next.receive(text);
    expect(counted).toHaveLength(5);
  });
});

describe("TokenCounter.compare on a huge text", () => {
  /** The guard as first written: a scan of the lower bound for each question asked of it. */
  function reference(before: string, after: string) {
    const lower = (stopAt: number) =>
      Math.max(Math.ceil(before.length / LONGEST_TOKEN_BYTES), minimumPieces(before, stopAt));
    const upper = Buffer.byteLength(after, "utf8");
    if (lower(upper + 1) > upper) return true;
    if (after.length >= before.length) return false;
    const exact = countO200k(after);
    return lower(exact + 1) > exact;
  }

  it.each([
    ["a collapse to a few lines", (huge: string) => huge.slice(0, 400)],
    ["a reformat that keeps most of it", (huge: string) => huge.replaceAll("  ", " ")],
    ["a result as long as the output", (huge: string) => huge.replaceAll("a", "b")],
    ["a result of more tokens", (huge: string) => huge.replaceAll(" ", "")],
  ])("decides %s from bounds as the guard did, counting only the result", (_name, change) => {
    const huge = Array.from({ length: 6000 }, (_, line) => `a  line ${line} of output  x`).join(
      "\n",
    );
    expect(huge.length).toBeGreaterThan(64 * 1024);
    const after = change(huge);
    const counter = new TokenCounter();
    const decided = counter.compare(huge, after);
    const fewer = reference(huge, after) || countO200k(after) < countO200k(huge);
    expect(decided.fewer).toBe(fewer);
  });
});

describe("POST /compact with the spelling of a special token in an output", () => {
  it("compacts the body instead of failing on it", async () => {
    const { app } = testApp({ limits: { compact_timeout_ms: 60_000 } });
    const transcript = Array.from(
      { length: 400 },
      (_, line) => `${line}: sample ${line} ended with <|endoftext|> after ${line * 3} tokens`,
    ).join("\n");
    const response = await postCompact(app, openaiBody([transcript, "ok", "ok", "ok"]));
    expect(response.status).toBe(200);
    expect(response.headers.get("x-context-guru-passthrough")).toBeNull();
    const before = Number(response.headers.get("x-context-guru-tokens-before"));
    expect(Number(response.headers.get("x-context-guru-tokens-after"))).toBeLessThan(before);
  });
});

describe("POST /compact with a tool output that is one long run", () => {
  it.each([
    ["reversible", {}],
    ["clean", CLEAN],
  ])("answers 200 and counts its tokens (%s)", async (_mode, config) => {
    // A generous deadline: the body is large enough for a worker thread, started on first use.
    const { app } = testApp({ ...config, limits: { compact_timeout_ms: 60_000 } });
    const body = openaiBody(["Q".repeat(512 * 1024), logOutput(200), logOutput(200)]);
    const response = await postCompact(app, body);
    expect(response.status).toBe(200);
    expect(Number(response.headers.get("x-context-guru-tokens-before"))).toBeGreaterThan(0);
  });
});
