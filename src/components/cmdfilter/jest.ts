import type { CommandFilter } from "./filter.js";

/**
 * JavaScript test runs: `jest`, `vitest`, and `npm|pnpm|yarn|bun test` (`run test` too).
 *
 * Drops: passing tests and files (`  ✓ adds numbers (3 ms)`, ` ✓ src/a.test.ts (3 tests) 5ms`,
 * `√`/`✔` alike) and passing-file headers (` PASS  src/a.test.ts`). Everything else stays: failing
 * blocks (`●`, `×`, `FAIL`), error and stack lines, console output and the summary
 * (`Tests: …`, `Test Files …`). Notes: `… (3 passed tests)`, `… (1 passed file)`.
 */

// `^\s*[✓✔√]\s` and `^\s*PASS\s+\S` of a line, read in the output from where the line starts
// (sticky): white space other than `\n` is what `\s` matches within a line. Most lines of a
// test log are dropped on these alone, so they are never made strings (output-lines.ts).
const PASSED = /[^\S\n]*[✓✔√][^\S\n]/y;
const PASSED_FILE = /[^\S\n]*PASS[^\S\n]+\S/y;
const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);

function isRunner(argv: readonly string[]): boolean {
  const [program, first, second] = argv;
  if (program === "jest" || program === "vitest") return true;
  if (!PACKAGE_MANAGERS.has(program ?? "")) return false;
  return first === "test" || first === "t" || (first === "run" && second === "test");
}

export const jest: CommandFilter = {
  name: "jest",
  matches: isRunner,
  plan(lines) {
    const drop: Array<string | undefined> = new Array(lines.count);
    for (let index = 0; index < lines.count; index++) {
      // Passing tests first: most lines of a test log are one, and no line is both.
      PASSED.lastIndex = lines.start(index);
      if (PASSED.test(lines.text)) {
        drop[index] = "passed test";
        continue;
      }
      PASSED_FILE.lastIndex = lines.start(index);
      if (PASSED_FILE.test(lines.text)) drop[index] = "passed file";
    }
    return { drop, notes: new Map() };
  },
};
