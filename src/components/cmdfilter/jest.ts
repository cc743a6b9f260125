import { type CommandFilter, dropWhere } from "./filter.js";

/**
 * JavaScript test runs: `jest`, `vitest`, and `npm|pnpm|yarn|bun test` (`run test` too).
 *
 * Drops: passing tests and files (`  ✓ adds numbers (3 ms)`, ` ✓ src/a.test.ts (3 tests) 5ms`,
 * `√`/`✔` alike) and passing-file headers (` PASS  src/a.test.ts`). Everything else stays: failing
 * blocks (`●`, `×`, `FAIL`), error and stack lines, console output and the summary
 * (`Tests: …`, `Test Files …`). Notes: `… (3 passed tests)`, `… (1 passed file)`.
 */

const PASSED = /^\s*[✓✔√]\s/;
const PASSED_FILE = /^\s*PASS\s+\S/;
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
  plan: (lines) =>
    dropWhere(lines, (line) => {
      // Passing tests first: most lines of a test log are one, and no line is both.
      if (PASSED.test(line)) return "passed test";
      return PASSED_FILE.test(line) ? "passed file" : undefined;
    }),
};
