import { describe, expect, it } from "vitest";
import { commandFamily, commandRun, detectRun, runFailed } from "../../src/components/test-runs.js";
import { toolOutputs } from "../support/component-context.js";

describe("commandFamily", () => {
  it.each([
    ["pytest tests/test_a.py -x", "pytest"],
    ["python -m pytest -q", "pytest"],
    ["cd /testbed && python3.11 -m pytest tests 2>&1 | tail -20", "pytest"],
    ["FOO=1 timeout 60 pytest", "pytest"],
    ["sudo env X=1 py.test", "pytest"],
    ["python tests/runtests.py queries 2>&1 | grep -E '^(OK|FAILED)'", "unittest"],
    ["python -m unittest discover", "unittest"],
    ["./manage.py test", undefined],
    ["python manage.py test app", "unittest"],
    ["tox -e py311", "tox"],
    ["npm test", "js test"],
    ["pnpm run test -- --watch=false", "js test"],
    ["npx vitest run test/a.test.ts", "js test"],
    ["yarn jest src", "js test"],
    ["npx tsc --noEmit", "js build"],
    ["npm run build", "js build"],
    ["go test ./...", "go test"],
    ["go build ./cmd/server", "go build"],
    ["cargo test --all", "cargo test"],
    ["cargo build --release", "cargo build"],
    ["make -j4 check", "make"],
    ["cmake --build build", "make"],
    ["./mvnw -q verify", "maven"],
    ["./gradlew test", "gradle"],
    ["dotnet test", "dotnet"],
    ["bundle exec rspec spec/a_spec.rb", "ruby test"],
    ["echo pytest", undefined],
    ["git commit -m 'make it pass'", undefined],
    ["grep -rn pytest src", undefined],
    ["cat tox.ini", undefined],
    ["ps aux | grep runtests", undefined],
    ["cmake ..", undefined],
    ["", undefined],
  ])("%j → %s", (command, family) => {
    expect(commandFamily(command)).toBe(family);
  });
});

describe("commandRun target", () => {
  const target = (...words: string[]) => words.join("\u0000");
  it.each<[string, string]>([
    ["pytest tests/test_a.py", target("pytest", "", "tests/test_a.py")],
    ["python -m pytest -q tests/test_a.py", target("pytest", "", "tests/test_a.py")],
    [
      "pytest -vv -x -s --tb=short --color=yes -rA --no-header -p no:cacheprovider tests/test_a.py",
      target("pytest", "", "tests/test_a.py"),
    ],
    [
      "pytest --tb short -n 4 --durations=5 tests/test_a.py",
      target("pytest", "", "tests/test_a.py"),
    ],
    [
      "pytest tests/test_a.py::TestX::test_y",
      target("pytest", "", "tests/test_a.py::TestX::test_y"),
    ],
    [
      "pytest -k 'combine and not slow' tests",
      target("pytest", "", "-k", "combine and not slow", "tests"),
    ],
    ["pytest -p xdist tests", target("pytest", "", "-p", "xdist", "tests")],
    ["cd /testbed && pytest tests 2>&1 | tail -30", target("pytest", "/testbed", "tests")],
    [
      "python tests/runtests.py forms_tests -v 2 --parallel 1",
      target("unittest", "", "forms_tests"),
    ],
    ["npx jest --ci --silent src/api.test.ts", target("js test", "", "src/api.test.ts")],
    ["go test -v -count=1 ./pkg/...", target("go test", "", "test", "./pkg/...")],
    ["make test", target("make", "", "test")],
  ])("%j → its target", (command, expected) => {
    expect(commandRun(command)?.target).toBe(expected);
  });
});

describe("runFailed", () => {
  it.each([
    ["pytest summary", "===== 1 failed, 180 passed in 2.14s =====", true],
    ["pytest summary, errors", "==== 3 passed, 2 errors in 0.40s ====", true],
    ["pytest bare summary", "1 failed, 180 passed in 2.14s", true],
    ["pytest passing", "===== 181 passed, 2 warnings in 2.14s =====", false],
    ["pytest collection", "!!!!!!! Interrupted: 1 error during collection !!!!!!!", true],
    ["unittest", "Ran 12 tests in 0.1s\n\nFAILED (failures=2, errors=1)", true],
    ["unittest passing", "Ran 925 tests in 3.981s\nOK (skipped=65, expected failures=2)", false],
    ["jest", "Tests:       1 failed, 41 passed, 42 total", true],
    ["jest passing", "Tests:       42 passed, 42 total", false],
    ["vitest", " Test Files  1 failed | 4 passed (5)", true],
    ["mocha", "  3 passing (20ms)\n  1 failing", true],
    ["go", "--- FAIL: TestAdd (0.00s)\nFAIL\nFAIL\tex/pkg\t0.01s", true],
    ["go passing", "ok  \tex/pkg\t0.01s", false],
    ["cargo", "test result: FAILED. 3 passed; 1 failed", true],
    ["rustc", "error[E0425]: cannot find value `x` in this scope", true],
    ["tsc", "src/a.ts(3,7): error TS2322: Type 'string' is not assignable", true],
    ["make", "make: *** [Makefile:12: all] Error 2", true],
    ["maven", "[INFO] BUILD FAILURE", true],
    ["gradle", "BUILD FAILED in 3s", true],
    ["npm", "npm ERR! Test failed.  See above for more details.", true],
    ["a test named after failure", "test_failure_is_reported PASSED\n1 passed in 0.1s", false],
    ["FAILED inside a line", "check that FAILED builds retry ... ok", false],
    ["empty", "", false],
  ])("%s → %s", (_, text, failed) => {
    expect(runFailed(text)).toBe(failed);
  });
});

describe("detectRun", () => {
  const target = (...words: string[]) => words.join("\u0000");
  it.each([
    [
      "from the command",
      { text: "1 passed", call: { input: { command: "pytest" } } },
      { family: "pytest", target: target("pytest", ""), failed: false },
    ],
    [
      "from an argv command",
      { text: "FAIL", call: { input: { cmd: ["go", "test", "./..."] } } },
      { family: "go test", target: target("go test", "", "test", "./..."), failed: true },
    ],
    [
      "from a prompt line",
      { text: "$ npm test\nTests: 1 failed, 1 total" },
      { family: "js test", target: target("js test", "", "test"), failed: true },
    ],
    [
      "from the output shape",
      { text: "collected 3 items\n\n3 passed in 0.02s" },
      { family: "pytest", target: "pytest", failed: false },
    ],
    [
      "from is_error",
      { text: "Exit code 2", call: { input: { command: "make" } }, isError: true },
      { family: "make", target: target("make", ""), failed: true },
    ],
    ["not a run", { text: "1 failed", call: { input: { command: "ls" } } }, undefined],
    [
      "a Read call",
      { text: "def test():\n    pass", call: { name: "Read", input: { file_path: "a.py" } } },
      undefined,
    ],
  ])("%s", (_, item, expected) => {
    expect(detectRun(toolOutputs([item])[0]!)).toEqual(expected);
  });
});
