import assert from "node:assert/strict";
import type { Hono } from "hono";
import { createApp } from "../../src/app.js";
import { parseConfig } from "../../src/config/load.js";
import type { Config, ConfigInput } from "../../src/config/schema.js";
import { removeExpandTool } from "../../src/expand/uninject.js";
import { countO200k } from "../../src/pipeline/tokens.js";
import { createStore } from "../../src/store/create.js";
import { scanTopLevel } from "../../src/wire/json-scan.js";
import { detectShape } from "../../src/wire/registry.js";

/**
 * The §10 invariants of `POST /compact`, checked for one request body against an in-process
 * app. Shared by the property suite (bounded counts) and `npm run fuzz` (deep runs).
 */
export type Mode = "reversible" | "clean";

export const MODES: Readonly<Record<Mode, ConfigInput>> = {
  reversible: {},
  clean: { store: { enabled: false }, marker_mode: "off" },
};

export interface Subject {
  readonly mode: Mode;
  readonly config: Config;
  readonly app: Hono;
}

export function subject(mode: Mode, overrides: ConfigInput = {}): Subject {
  // Same input, same bytes holds for compactions that finish; a deadline that passes on a busy
  // machine sends the original instead (test/compaction covers that answer).
  const limits = { compact_timeout_ms: 60_000, ...overrides.limits };
  const config = parseConfig({ ...MODES[mode], ...overrides, limits });
  return { mode, config, app: createApp({ config, store: createStore(config.store) }) };
}

let sessions = 0;

/** A session id no other case uses, so stashes of one case never resolve in another. */
export function freshSession(): string {
  sessions += 1;
  return `fuzz-${process.pid}-${sessions}`;
}

async function post(
  app: Hono,
  path: string,
  body: Uint8Array | string,
  session: string,
  extra: Readonly<Record<string, string>> = {},
): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
  const response = await app.request(path, {
    method: "POST",
    body,
    // A length, as real clients send: in-process requests without one keep memory per request.
    headers: {
      "content-type": "application/json",
      "content-length": String(
        typeof body === "string" ? Buffer.byteLength(body) : body.byteLength,
      ),
      "x-context-guru-session": session,
      ...extra,
    },
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: new Uint8Array(await response.arrayBuffer()),
  };
}

const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const text = (bytes: Uint8Array) => decoder.decode(bytes);
const equalBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

function parsedObject(body: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text(body));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Checks every invariant for one body; throws an AssertionError naming the one that broke. */
export async function checkCompact(target: Subject, input: Uint8Array): Promise<void> {
  const session = freshSession();
  // Decided whole (a cold cache, §4a), so components that reach back run too.
  const first = await post(target.app, "/compact", input, session, {
    "x-context-guru-cache": "cold",
  });
  const limit = target.config.limits.body_bytes;
  if (input.byteLength > limit) {
    assert.equal(first.status, 413, "over the body limit: 413");
    assert.deepEqual(JSON.parse(text(first.bytes)), {
      error: `request body exceeds ${limit} bytes`,
    });
    return;
  }
  assert.equal(first.status, 200, "answers 200");
  assert.equal(first.headers.get("content-type"), "application/json");

  // The same body again, warm: every message was sent before, so it comes back as it went.
  const second = await post(target.app, "/compact", input, session);
  assert.equal(second.status, 200, "answers 200 again");
  assert.ok(equalBytes(first.bytes, second.bytes), "same input → same bytes");

  const before = first.headers.get("x-context-guru-tokens-before");
  const after = first.headers.get("x-context-guru-tokens-after");
  if (before !== null && after !== null) {
    assert.ok(Number(after) <= Number(before), `tokens after ${after} ≤ before ${before}`);
  }
  if (equalBytes(first.bytes, input)) return checkRehydrateIdentity(target, input, session);

  const inputText = text(input);
  const outputText = text(first.bytes);
  // Reversible mode may add the expand tool as the last entry of `tools` (§8.1), nothing else.
  const shape = detectShape(JSON.parse(inputText) as Record<string, unknown>);
  assertSameShape(
    inputText,
    target.mode === "reversible" ? removeExpandTool(outputText, shape) : outputText,
  );
  if (target.mode === "clean") {
    for (const needle of ["<<cg:", "\u27eacg\u27eb"]) {
      const was = occurrences(JSON.parse(inputText), needle);
      const now = occurrences(JSON.parse(outputText), needle);
      assert.ok(now <= was, `clean mode writes no ${needle} (${was} → ${now})`);
    }
    return;
  }
  if (first.headers.get("x-context-guru-markers-degraded") !== null) {
    // The model cannot call the expand tool: no marker it could not redeem (§8.1).
    const was = occurrences(JSON.parse(inputText), "<<cg:");
    const now = occurrences(JSON.parse(outputText), "<<cg:");
    assert.ok(now <= was, `no new marker when markers are degraded (${was} → ${now})`);
    return;
  }
  const back = await post(target.app, "/rehydrate", first.bytes, session);
  if (first.bytes.byteLength > limit) {
    // The expand tool made the body longer than the limit: /rehydrate refuses it clearly.
    assert.equal(back.status, 413, "rehydrate of a body over the limit: 413");
    return;
  }
  assert.equal(back.status, 200, "rehydrate answers 200");
  assert.ok(equalBytes(back.bytes, input), "rehydrate(compact(x)) = x byte for byte");
}

/** Rehydrating a body the compactor did not change gives it back as it came (or a clear 400). */
async function checkRehydrateIdentity(
  target: Subject,
  input: Uint8Array,
  session: string,
): Promise<void> {
  if (target.mode === "clean") return;
  const back = await post(target.app, "/rehydrate", input, session);
  if (parsedObject(input) === undefined) {
    assert.equal(back.status, 400, "rehydrate refuses a body that is not a JSON object");
    return;
  }
  assert.equal(back.status, 200, "rehydrate answers 200");
  assert.ok(equalBytes(back.bytes, input), "rehydrate of an unchanged body is the body");
}

/**
 * Output is the input with only string values inside `messages` rewritten: every byte before
 * and after the `messages` value is identical, and `messages` keeps its structure, key order,
 * numbers and literals. The rewritten strings hold no more tokens than the ones they replace.
 */
export function assertSameShape(input: string, output: string): void {
  const inputScan = scanTopLevel(input);
  const outputScan = scanTopLevel(output);
  assert.ok(inputScan && outputScan, "both are JSON objects");
  const was = inputScan.members.get("messages");
  const now = outputScan.members.get("messages");
  assert.ok(was && now, "both have messages");
  assert.equal(output.slice(0, now.start), input.slice(0, was.start), "bytes before messages");
  assert.equal(output.slice(now.end), input.slice(was.end), "bytes after messages");
  const tokens = { before: 0, after: 0 };
  compareShape(
    JSON.parse(input.slice(was.start, was.end)),
    JSON.parse(output.slice(now.start, now.end)),
    "messages",
    tokens,
  );
  assert.ok(
    tokens.after <= tokens.before,
    `rewritten strings: ${tokens.before} → ${tokens.after} tokens`,
  );
}

function compareShape(
  was: unknown,
  now: unknown,
  path: string,
  tokens: { before: number; after: number },
): void {
  if (typeof was === "string" && typeof now === "string") {
    if (was !== now) {
      tokens.before += countO200k(was);
      tokens.after += countO200k(now);
    }
    return;
  }
  if (Array.isArray(was) && Array.isArray(now)) {
    assert.equal(now.length, was.length, `${path}: same length`);
    for (const [index, item] of was.entries()) {
      compareShape(item, now[index], `${path}/${index}`, tokens);
    }
    return;
  }
  if (isObject(was) && isObject(now)) {
    assert.deepEqual(Object.keys(now), Object.keys(was), `${path}: same keys in order`);
    for (const key of Object.keys(was)) compareShape(was[key], now[key], `${path}/${key}`, tokens);
    return;
  }
  assert.deepEqual(now, was, `${path}: same value`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Occurrences of `needle` in every key and string of a parsed value (iterative: any depth). */
function occurrences(root: unknown, needle: string): number {
  let count = 0;
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === "string") count += value.split(needle).length - 1;
    else if (Array.isArray(value)) for (const item of value) pending.push(item);
    else if (isObject(value)) {
      for (const [key, item] of Object.entries(value)) pending.push(key, item);
    }
  }
  return count;
}
