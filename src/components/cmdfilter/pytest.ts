import { type CommandFilter, dropWhere } from "./filter.js";

/**
 * Python test runs: `pytest`, `py.test`, `python -m pytest`, `python -m unittest`, Django's
 * `runtests.py` and `manage.py test`.
 *
 * Drops: passing tests (`tests/a.py::test_x PASSED [ 10%]`, `PASSED tests/a.py::test_x`,
 * unittest's `test_x (pkg.Case) ... ok`) and progress lines made only of `.`, `s`, `x` and `X`
 * (`tests/a.py ..s..  [ 40%]`, `.......`). A progress line with an `F` or `E` stays, and so does
 * everything else: the FAILURES and ERRORS sections, the short test summary and the final line.
 * Notes: `… (4 passed tests)`, `… (2 progress lines)`.
 */

// A passing test's id (`a.py::test_x`) is checked by a lookahead, which keeps no choices to go
// back to: `\S+::\S.*` read the rest of the line again from every `::` of a long first word. The
// id holds no whitespace, so ` PASSED` is still looked for after it, on the same line.
const PASSED = /^(?=\S+::\S).*\sPASSED\b|^PASSED \S+::\S/;
const UNITTEST_OK = /^test\w* \([\w.]+\)(?: .*)? \.\.\. ok$/;
// The spaces before a percentage are read with it, so that a run of spaces after the marks is
// not split between two `\s*` in every way.
const PROGRESS = /^(?:\S+\.py\s+)?[.sxX]+(?:\s*\[\s*\d+%\])?\s*$/;

function isRunner(argv: readonly string[]): boolean {
  const [program, subcommand] = argv;
  if (program === "pytest" || program === "py.test" || program === "unittest") return true;
  if (program === "runtests.py") return true;
  return program === "manage.py" && subcommand === "test";
}

export const pytest: CommandFilter = {
  name: "pytest",
  matches: isRunner,
  plan: (lines) =>
    dropWhere(lines, (line) => {
      if (PASSED.test(line) || UNITTEST_OK.test(line)) return "passed test";
      return PROGRESS.test(line) ? "progress line" : undefined;
    }),
};
