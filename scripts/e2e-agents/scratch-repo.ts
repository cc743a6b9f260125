import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The repository each agent works in: a small module with a failing test, a 3,000-line log, a
 * long source file and a tree with many TODO lines, so the scripted session's tool outputs are
 * large enough for the service to reduce. The same bytes every run (fixed commit dates).
 */

const SERVICES = ["api", "db", "cache", "queue", "search", "auth", "billing", "mailer"];
const LEVELS = ["INFO", "INFO", "INFO", "DEBUG", "INFO", "WARN", "INFO", "DEBUG"];

/**
 * `logs/app.log`: 3,000 lines of a service log (about 130 KB: Claude Code keeps such an output
 * in a file and sends a 2 KB preview of it; Codex sends its first and last 5,000 tokens or so),
 * a few errors among them.
 */
export function appLog(): string {
  const lines: string[] = [];
  for (let index = 0; index < 3000; index++) {
    const service = SERVICES[index % SERVICES.length];
    const second = String(index % 60).padStart(2, "0");
    const minute = String(Math.floor(index / 60) % 60).padStart(2, "0");
    const stamp = `09:${minute}:${second}.${String((index * 37) % 1000).padStart(3, "0")}`;
    if (index % 997 === 500) {
      lines.push(`${stamp} ERROR ${service} connection reset`);
      continue;
    }
    const level = LEVELS[index % LEVELS.length];
    lines.push(
      `${stamp} ${level} ${service} req=${(index * 7919) % 100000} ${(index * 13) % 250}ms 200`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** `src/server.mjs`: a 600-line module, read with `head -n 400`. */
export function serverModule(): string {
  const lines = ["// A small HTTP router, generated for the end-to-end session.", ""];
  for (let index = 0; index < 99; index++) {
    lines.push(`export function handler${index}(request) {`);
    lines.push(`  const route = request.path.split("/")[${index % 5}] ?? "root";`);
    lines.push(`  return { status: 200, body: \`handler ${index} served \${route}\` };`);
    lines.push("}");
    lines.push(index % 9 === 0 ? `// TODO: validate the input of handler${index}` : "");
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}

const CALC = `// Arithmetic helpers.
export function add(a, b) {
  return a - b;
}

export function multiply(a, b) {
  return a * b;
}
`;

/** A test runner in plain node: one line per case, a summary, exit 1 on a failure. */
const RUN_TESTS = `#!/bin/sh
exec node test/run.mjs
`;

function testRunner(): string {
  const cases: string[] = [];
  for (let index = 0; index < 60; index++) {
    cases.push(`  ["multiply ${index} by 3", () => multiply(${index}, 3) === ${index * 3}],`);
  }
  cases.push('  ["add 2 and 3", () => add(2, 3) === 5],');
  return `import { add, multiply } from "../src/calc.mjs";

const cases = [
${cases.join("\n")}
];
let failed = 0;
for (const [name, check] of cases) {
  const ok = check();
  if (!ok) failed++;
  console.log(\`\${ok ? "PASS" : "FAIL"} \${name}\`);
}
console.log(\`\${cases.length - failed} passed, \${failed} failed\`);
if (failed > 0) {
  console.log("AssertionError: add(2, 3) expected 5");
  process.exit(1);
}
`;
}

function todoModule(index: number): string {
  const lines = [`// Module ${index} of the generated tree.`];
  for (let line = 0; line < 40; line++) {
    lines.push(
      line % 3 === 0
        ? `// TODO(${index}.${line}): replace the placeholder value of step ${line}`
        : `export const step${line} = ${index * 100 + line};`,
    );
  }
  return `${lines.join("\n")}\n`;
}

export const REPO_FILES: Readonly<Record<string, () => string>> = {
  "README.md": () => "# calc\n\nArithmetic helpers. Run `sh run-tests.sh`.\n",
  "src/calc.mjs": () => CALC,
  "src/server.mjs": serverModule,
  "run-tests.sh": () => RUN_TESTS,
  "test/run.mjs": testRunner,
  "logs/app.log": appLog,
  ...Object.fromEntries(
    Array.from({ length: 16 }, (_, index) => [
      `src/steps/step${index}.mjs`,
      () => todoModule(index),
    ]),
  ),
};

const GIT_ENV = {
  GIT_AUTHOR_NAME: "e2e",
  GIT_AUTHOR_EMAIL: "e2e@example.invalid",
  GIT_COMMITTER_NAME: "e2e",
  GIT_COMMITTER_EMAIL: "e2e@example.invalid",
  GIT_AUTHOR_DATE: "2026-03-14T09:00:00Z",
  GIT_COMMITTER_DATE: "2026-03-14T09:00:00Z",
};

/** Writes the repository into `dir` (which must not exist yet or be empty) and commits it. */
export function writeScratchRepo(dir: string): void {
  for (const [path, content] of Object.entries(REPO_FILES)) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content());
  }
  const git = (...args: string[]) =>
    execFileSync("git", args, {
      cwd: dir,
      env: { ...process.env, ...GIT_ENV },
      stdio: ["ignore", "ignore", "pipe"],
    });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "calc: helpers and their tests");
}
