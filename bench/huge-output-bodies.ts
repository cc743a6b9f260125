/**
 * Agent bodies with one huge tool output among about twenty ordinary ones (§10, big bodies):
 * what an agent sends after running a build, a test suite or a service with verbose logging.
 * Every generator takes a seed, so two bodies of one kind never share their huge output (nothing
 * is memoised between them) while the same seed gives the same bytes.
 */

export type HugeKind =
  | "make"
  | "tests"
  | "jsonl"
  | "api"
  | "blob"
  | "ansi"
  | "yaml"
  | "table"
  | "seq"
  | "yes";
/** The kinds a run measures unless told otherwise. */
export const HUGE_KINDS: readonly HugeKind[] = ["make", "tests", "jsonl", "api"];
/**
 * Every kind: the default ones, and those whose shape is the hard part — a file printed as one
 * line of base64 (no line to collapse on; only a cut in the middle of the line reduces it), a
 * coloured progress log (ANSI colours on every line, carriage-return redraws within lines), the
 * pods of a cluster as YAML (every record opens with the same line) and as an aligned table
 * (shortened by whole records, the failing ones kept), a million short lines (`seq`: the
 * work of every line, not of every byte), and one line of one character repeated (`yes`: as
 * many lines as a text of that size can have, every one a repeat).
 */
export const ALL_HUGE_KINDS: readonly HugeKind[] = [
  ...HUGE_KINDS,
  "blob",
  "ansi",
  "yaml",
  "table",
  "seq",
  "yes",
];

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(next: () => number, items: readonly T[]): T =>
  items[Math.floor(next() * items.length)] as T;

const DIRS = ["core", "net", "storage", "ui", "auth", "codec", "sched", "metrics"];
const WORDS = ["buffer", "parser", "queue", "handler", "client", "index", "cache", "stream"];

/** A recursive `make -j` log: directory changes, compiler lines, a few warnings, link steps. */
function makeLog(bytes: number, next: () => number): string {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const dir = pick(next, DIRS);
    const file = `${pick(next, WORDS)}_${Math.floor(next() * 400)}`;
    let line: string;
    const roll = next();
    if (roll < 0.03) line = `make[2]: Entering directory '/home/ci/work/engine/build/src/${dir}'`;
    else if (roll < 0.06) {
      line =
        `src/${dir}/${file}.c:${Math.floor(next() * 900) + 1}:${Math.floor(next() * 60) + 1}: ` +
        `warning: unused variable '${pick(next, WORDS)}' [-Wunused-variable]`;
    } else if (roll < 0.08)
      line = `[${Math.floor((100 * size) / bytes)}%] Linking C static library lib${dir}.a`;
    else {
      line =
        `gcc -O2 -g -Wall -Wextra -fPIC -Iinclude -Isrc/${dir} -DNDEBUG -c src/${dir}/${file}.c ` +
        `-o build/obj/${dir}/${file}.o`;
    }
    lines.push(line);
    size += line.length + 1;
  }
  lines.push("make: *** [Makefile:214: all] Error 2");
  return lines.join("\n");
}

/** A test runner's log: long repeated path prefixes, passing cases, a failure with its stack. */
function testLog(bytes: number, next: () => number): string {
  const root = "/home/runner/work/monorepo-platform/monorepo-platform/packages";
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const pkg = `${pick(next, DIRS)}-${pick(next, WORDS)}`;
    const suite = `${root}/${pkg}/src/__tests__/${pick(next, WORDS)}-${Math.floor(next() * 500)}.test.ts`;
    const failed = next() < 0.02;
    const block = [`${failed ? "FAIL" : "PASS"} ${suite} (${(next() * 3).toFixed(2)} s)`];
    const cases = 3 + Math.floor(next() * 6);
    for (let item = 0; item < cases; item++) {
      block.push(
        `  ✓ ${pick(next, WORDS)} ${pick(next, ["handles", "rejects", "returns", "keeps"])} ` +
          `${pick(next, WORDS)} when ${pick(next, WORDS)} is ${pick(next, ["empty", "full", "stale", "null"])} (${Math.floor(next() * 40)} ms)`,
      );
    }
    if (failed) {
      block.push(
        `  ✕ ${pick(next, WORDS)} flushes on close (${Math.floor(next() * 900)} ms)`,
        "    Error: expected 3 to be 4",
        `      at Object.<anonymous> (${root}/${pkg}/src/__tests__/flush.test.ts:${Math.floor(next() * 200)}:17)`,
        `      at processTicksAndRejections (node:internal/process/task_queues:95:5)`,
      );
    }
    for (const line of block) {
      lines.push(line);
      size += line.length + 1;
    }
  }
  lines.push("Tests: 41 failed, 12803 passed, 12844 total");
  return lines.join("\n");
}

/** A service's structured log: one JSON record a line. */
function jsonLines(bytes: number, next: () => number): string {
  const lines: string[] = [];
  let size = 0;
  for (let index = 0; size < bytes; index++) {
    const record = {
      ts: `2026-11-30T10:${String(Math.floor(index / 6000) % 60).padStart(2, "0")}:${String(Math.floor(index / 100) % 60).padStart(2, "0")}.${String(index % 1000).padStart(3, "0")}Z`,
      level: next() < 0.05 ? "warn" : "info",
      msg: pick(next, ["request served", "cache miss", "retrying upstream", "job finished"]),
      path: `/api/v2/${pick(next, DIRS)}/${Math.floor(next() * 10_000)}`,
      status: next() < 0.03 ? 503 : 200,
      ms: Math.floor(next() * 250),
      trace: Math.floor(next() * 2 ** 48).toString(16),
    };
    const line = JSON.stringify(record);
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** An API's answer as `curl | jq` prints it: one pretty JSON document, an envelope of items. */
function apiDump(bytes: number, next: () => number): string {
  const items: unknown[] = [];
  let size = 0;
  for (let index = 0; size < bytes; index++) {
    const item = {
      id: `${pick(next, WORDS)}-${index}`,
      namespace: pick(next, DIRS),
      phase: next() < 0.002 ? "Failed" : "Running",
      restarts: Math.floor(next() * 3),
      image: `registry.local/${pick(next, WORDS)}:1.${Math.floor(next() * 40)}.0`,
      labels: { app: pick(next, WORDS), tier: pick(next, ["web", "worker", "batch"]) },
    };
    items.push(item);
    // Pretty-printed at two levels of indentation: about 1.45 times the compact form.
    size += JSON.stringify(item).length * 1.45;
  }
  return JSON.stringify({ kind: "List", total: items.length, items }, null, 2);
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** A binary file as `base64 -w0` prints it: one line. */
function base64Blob(bytes: number, next: () => number): string {
  const chunks: string[] = [];
  for (let size = 0; size < bytes; size += 1024) {
    let chunk = "";
    for (let at = 0; at < 1024; at++) chunk += BASE64[Math.floor(next() * 64)];
    chunks.push(chunk);
  }
  return chunks.join("").slice(0, Math.max(4, bytes - (bytes % 4)));
}

/** An install run with colours forced on: a coloured step line, then a line of redraws. */
function colouredProgress(bytes: number, next: () => number): string {
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const name = `${pick(next, WORDS)}-${pick(next, DIRS)}@${Math.floor(next() * 9)}.${Math.floor(next() * 30)}.0`;
    const redraws = Array.from(
      { length: 8 },
      (_, at) => `\u001b[2K\u001b[36mfetch\u001b[0m ${name} ${(at + 1) * 12}%`,
    ).join("\r");
    const added =
      next() < 0.01
        ? `\u001b[33mnpm\u001b[0m \u001b[43mWARN\u001b[0m deprecated ${name}: no longer supported`
        : `\u001b[32m+\u001b[0m ${name} \u001b[90m(${Math.floor(next() * 900)} ms)\u001b[0m`;
    for (const line of [redraws, added]) {
      lines.push(line);
      size += line.length + 1;
    }
  }
  lines.push(`\u001b[32madded ${lines.length / 2} packages\u001b[0m`);
  return lines.join("\n");
}

/** `kubectl get pods -A -o yaml`: every pod opens with `- apiVersion: v1`; a few are Pending. */
function podsYaml(bytes: number, next: () => number): string {
  const lines = ["apiVersion: v1", "items:"];
  let size = 0;
  for (let index = 0; size < bytes; index++) {
    const pod = [
      "- apiVersion: v1",
      "  kind: Pod",
      "  metadata:",
      `    name: ${pick(next, WORDS)}-${index.toString(36)}`,
      `    namespace: ${pick(next, DIRS)}`,
      "  spec:",
      `    nodeName: node-${Math.floor(next() * 40)}`,
      "  status:",
      `    phase: ${next() < 0.002 ? "Pending" : "Running"}`,
      `    podIP: 10.${Math.floor(next() * 250)}.${Math.floor(next() * 250)}.${index % 250}`,
    ];
    lines.push(...pod);
    size += pod.reduce((sum, line) => sum + line.length + 1, 0);
  }
  lines.push("kind: List", "metadata:", '  resourceVersion: ""');
  return lines.join("\n");
}

/** `kubectl get pods -A`, aligned as kubectl aligns it; a few pods crash-looping. */
function podsTable(bytes: number, next: () => number): string {
  const widths = [14, 30, 8, 19, 11];
  const row = (cells: readonly string[]) =>
    cells
      .map((cell, at) => (at < widths.length ? cell.padEnd(widths[at] as number) : cell))
      .join("");
  const lines = [row(["NAMESPACE", "NAME", "READY", "STATUS", "RESTARTS", "AGE"])];
  let size = 0;
  for (let index = 0; size < bytes; index++) {
    const failing = next() < 0.002;
    const line = row([
      pick(next, DIRS),
      `${pick(next, WORDS)}-${index.toString(36)}`,
      failing ? "0/1" : "1/1",
      failing ? "CrashLoopBackOff" : "Running",
      String(failing ? 1 + Math.floor(next() * 30) : 0),
      `${1 + Math.floor(next() * 30)}d`,
    ]);
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** `seq M N`: short lines, one number each (from a start of the seed's). */
function sequence(bytes: number, next: () => number): string {
  const lines: string[] = [];
  let size = 0;
  for (let number = 1 + Math.floor(next() * 100_000); size < bytes; number++) {
    const line = String(number);
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n");
}

/** `yes | head -n N`: one line of one character, repeated (how many, the seed's). */
function repeated(bytes: number, next: () => number): string {
  return "y\n".repeat(Math.max(1, Math.floor(bytes / 2) - Math.floor(next() * 1000))).slice(0, -1);
}

/** The command each kind of huge output came from. */
const COMMANDS: Record<HugeKind, string> = {
  make: "make -j8 all",
  tests: "npm test",
  jsonl: "kubectl logs api-0",
  api: "curl -s https://k8s.local/api/v1/pods | jq .",
  blob: "base64 -w0 build/app.wasm",
  ansi: "npm ci --color=always",
  yaml: "kubectl get pods -A -o yaml",
  table: "kubectl get pods -A",
  seq: "seq 1 2000000",
  yes: "yes | head -n 5000000",
};

/** Characters of output per byte of body where JSON escapes (`\"`, `\u001b`, `\n`) lengthen it. */
const ESCAPED_SHARE: Partial<Record<HugeKind, number>> = { jsonl: 0.88, ansi: 0.7, yes: 0.66 };

const HUGE: Record<HugeKind, (bytes: number, next: () => number) => string> = {
  make: makeLog,
  tests: testLog,
  jsonl: jsonLines,
  api: apiDump,
  blob: base64Blob,
  ansi: colouredProgress,
  yaml: podsYaml,
  table: podsTable,
  seq: sequence,
  yes: repeated,
};

/** One of twenty ordinary outputs: a file read, a directory listing, a grep, a git status. */
function ordinaryOutput(index: number, next: () => number): { command: string; output: string } {
  const dir = pick(next, DIRS);
  switch (index % 4) {
    case 0:
      return {
        command: `cat src/${dir}/${pick(next, WORDS)}.ts`,
        output: Array.from(
          { length: 40 + Math.floor(next() * 60) },
          (_, line) =>
            `${line % 7 === 0 ? "" : "  "}const ${pick(next, WORDS)}${line} = ${pick(next, WORDS)}(${line});`,
        ).join("\n"),
      };
    case 1:
      return {
        command: `ls -la src/${dir}`,
        output: Array.from(
          { length: 10 + Math.floor(next() * 30) },
          (_, line) =>
            `-rw-r--r--  1 dev dev ${Math.floor(next() * 90_000)} Nov 30 10:0${line % 10} ${pick(next, WORDS)}-${line}.ts`,
        ).join("\n"),
      };
    case 2:
      return {
        command: `grep -rn ${pick(next, WORDS)} src/`,
        output: Array.from(
          { length: 5 + Math.floor(next() * 25) },
          () =>
            `src/${pick(next, DIRS)}/${pick(next, WORDS)}.ts:${Math.floor(next() * 300)}:  return ${pick(next, WORDS)}.${pick(next, WORDS)}();`,
        ).join("\n"),
      };
    default:
      return {
        command: "git status --short",
        output: Array.from(
          { length: 3 + Math.floor(next() * 12) },
          () => ` M src/${pick(next, DIRS)}/${pick(next, WORDS)}.ts`,
        ).join("\n"),
      };
  }
}

export interface HugeOutputBody {
  readonly body: string;
  /** Index in `messages` of the huge output. */
  readonly index: number;
  /** The huge output itself. */
  readonly output: string;
}

/**
 * An OpenAI body of about `bytes` bytes: twenty ordinary Bash outputs and one huge output of
 * `kind` (in the middle for a build log, the newest otherwise), the Bash tool declared.
 */
export function hugeOutputBody(kind: HugeKind, bytes: number, seed: number): HugeOutputBody {
  const next = random(seed);
  const outputs = Array.from({ length: 20 }, (_, index) => ordinaryOutput(index, next));
  const ordinaryBytes = outputs.reduce((sum, { output }) => sum + output.length + 300, 0);
  const huge = {
    command: COMMANDS[kind],
    // Sized so that the body, escapes and all, comes to about `bytes`.
    output: HUGE[kind](Math.max(1, bytes - ordinaryBytes) * (ESCAPED_SHARE[kind] ?? 1), next),
  };
  outputs.splice(kind !== "make" ? outputs.length : 10, 0, huge);
  const messages: unknown[] = [
    { role: "user", content: "Find out why the build fails and fix it." },
  ];
  let index = -1;
  outputs.forEach(({ command, output }, call) => {
    const id = `call_${seed}_${call}`;
    messages.push(
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id,
            type: "function",
            function: { name: "Bash", arguments: JSON.stringify({ command }) },
          },
        ],
      },
      { role: "tool", tool_call_id: id, content: output },
    );
    if (output === huge.output) index = messages.length - 1;
  });
  const tools = [{ type: "function", function: { name: "Bash", parameters: { type: "object" } } }];
  return { body: JSON.stringify({ model: "gpt-4o", messages, tools }), index, output: huge.output };
}
