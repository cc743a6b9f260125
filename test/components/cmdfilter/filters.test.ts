import { describe, expect, it } from "vitest";
import { cmdfilter } from "../../../src/components/cmdfilter.js";
import { componentsSchema } from "../../../src/config/schema.js";
import { fakeContext, idOf, toolOutputs } from "../../support/component-context.js";

const options = { ...componentsSchema.parse({}).cmdfilter, min_tokens: 0 };

/** The filtered text in off mode (no marker), or undefined. */
function filtered(command: string, text: string): string | undefined {
  const outputs = toolOutputs([{ text, call: { input: { command } } }]);
  return cmdfilter.reduce(outputs[0]!, options, fakeContext(outputs, { mode: "off" })) as
    | string
    | undefined;
}

const lines = (...items: string[]) => items.join("\n");

const pytestVerbose = lines(
  "============================= test session starts ==============================",
  "collected 6 items",
  "",
  "tests/test_api.py::test_list PASSED                                      [ 16%]",
  "tests/test_api.py::test_create PASSED                                    [ 33%]",
  "tests/test_api.py::test_delete FAILED                                    [ 50%]",
  "tests/test_db.py::test_connect PASSED                                    [ 66%]",
  "tests/test_db.py::test_retry_on_error PASSED                             [ 83%]",
  "tests/test_db.py::test_close SKIPPED (needs db)                          [100%]",
  "",
  "=================================== FAILURES ===================================",
  "    def test_delete():",
  ">       assert delete(1) == 204",
  "E       assert 404 == 204",
  "tests/test_api.py:12: AssertionError",
  "=========================== short test summary info ============================",
  "FAILED tests/test_api.py::test_delete - assert 404 == 204",
  "==================== 1 failed, 4 passed, 1 skipped in 0.12s ====================",
);

const gitLogFull = lines(
  "commit 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
  "Author: Ada <ada@example.com>",
  "Date:   Mon Jan 1 10:00:00 2024 +0000",
  "",
  "    Add retry to the client",
  "",
  "    The client now retries idempotent requests.",
  "    Fixes a timeout error seen in CI.",
  "",
  "commit 0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e",
  "Merge: 1a2b3c4 9f8e7d6",
  "Author: Bob <bob@example.com>",
  "Date:   Sun Dec 31 09:00:00 2023 +0000",
  "",
  "    Merge branch 'docs'",
  "",
);

const oneline = (count: number) =>
  Array.from({ length: count }, (_, i) => `${(0xabc0000 + i).toString(16)} change ${i}`);

describe("cmdfilter filters", () => {
  it.each<[string, string, string, string]>([
    [
      "pytest -v",
      "pytest -v",
      pytestVerbose,
      lines(
        "============================= test session starts ==============================",
        "collected 6 items",
        "",
        "… (2 passed tests)",
        "tests/test_api.py::test_delete FAILED                                    [ 50%]",
        "… (1 passed test)",
        "tests/test_db.py::test_retry_on_error PASSED                             [ 83%]",
        "tests/test_db.py::test_close SKIPPED (needs db)                          [100%]",
        ...pytestVerbose.split("\n").slice(9),
      ),
    ],
    [
      "pytest -q progress",
      "python -m pytest -q",
      lines(
        "tests/test_a.py ......                                                   [ 50%]",
        "tests/test_b.py ..F...                                                   [100%]",
        "........",
        "1 failed, 13 passed in 0.40s",
      ),
      lines(
        "… (1 progress line)",
        "tests/test_b.py ..F...                                                   [100%]",
        "........",
        "1 failed, 13 passed in 0.40s",
      ),
    ],
    [
      "unittest",
      "python tests/runtests.py calc",
      lines(
        "test_add (calc.tests.CalcTests) ... ok",
        "test_div (calc.tests.CalcTests) ... ERROR",
        "test_sub (calc.tests.CalcTests) ... ok",
        "Ran 3 tests in 0.001s",
        "FAILED (errors=1)",
      ),
      lines(
        "… (1 passed test)",
        "test_div (calc.tests.CalcTests) ... ERROR",
        "… (1 passed test)",
        "Ran 3 tests in 0.001s",
        "FAILED (errors=1)",
      ),
    ],
    [
      "jest",
      "npx jest",
      lines(
        " PASS  src/math.test.ts",
        " FAIL  src/api.test.ts",
        "  api",
        "    ✓ lists users (3 ms)",
        "    ✓ handles a network error (2 ms)",
        "    ✕ creates a user (5 ms)",
        "  ● api › creates a user",
        "    expect(received).toBe(expected)",
        "      at Object.<anonymous> (src/api.test.ts:12:5)",
        "Tests:       1 failed, 2 passed, 3 total",
      ),
      lines(
        "… (1 passed file)",
        " FAIL  src/api.test.ts",
        "  api",
        "… (1 passed test)",
        "    ✓ handles a network error (2 ms)",
        "    ✕ creates a user (5 ms)",
        "  ● api › creates a user",
        "    expect(received).toBe(expected)",
        "      at Object.<anonymous> (src/api.test.ts:12:5)",
        "Tests:       1 failed, 2 passed, 3 total",
      ),
    ],
    [
      "vitest",
      "npx vitest run",
      lines(
        " ✓ src/math.test.ts (3 tests) 2ms",
        " ❯ src/api.test.ts (2 tests | 1 failed) 6ms",
        "   ✓ api > lists users",
        "   × api > creates a user",
        " Test Files  1 failed | 1 passed (2)",
        "      Tests  1 failed | 4 passed (5)",
      ),
      lines(
        "… (1 passed test)",
        " ❯ src/api.test.ts (2 tests | 1 failed) 6ms",
        "… (1 passed test)",
        "   × api > creates a user",
        " Test Files  1 failed | 1 passed (2)",
        "      Tests  1 failed | 4 passed (5)",
      ),
    ],
    [
      "pip install",
      "pip install requests pytest",
      lines(
        "Collecting requests",
        "  Downloading requests-2.31.0-py3-none-any.whl (62 kB)",
        "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 62.6/62.6 kB 4.1 MB/s eta 0:00:00",
        "Requirement already satisfied: idna<4,>=2.5 in /usr/lib/python3/dist-packages (3.3)",
        "Requirement already satisfied: exceptiongroup in ./venv (from pytest) (1.1.1)",
        "WARNING: Retrying (Retry(total=4)) after connection broken",
        "Installing collected packages: requests",
        "Successfully installed requests-2.31.0",
      ),
      lines(
        "Collecting requests",
        '… (1 "Downloading" line, 1 progress line, 1 "Requirement already satisfied" line)',
        "Requirement already satisfied: exceptiongroup in ./venv (from pytest) (1.1.1)",
        "WARNING: Retrying (Retry(total=4)) after connection broken",
        "Installing collected packages: requests",
        "Successfully installed requests-2.31.0",
      ),
    ],
    [
      "npm install",
      "npm install left-pad",
      lines(
        "npm http fetch GET 200 https://registry.npmjs.org/left-pad 120ms (cache miss)",
        "npm WARN deprecated left-pad@1.3.0: use String.prototype.padStart()",
        "npm timing reify Completed in 900ms",
        "",
        "added 1 package, and audited 2 packages in 1s",
        "found 0 vulnerabilities",
      ),
      lines(
        "npm http fetch GET 200 https://registry.npmjs.org/left-pad 120ms (cache miss)",
        "npm WARN deprecated left-pad@1.3.0: use String.prototype.padStart()",
        '… (1 "npm timing" line)',
        "",
        "added 1 package, and audited 2 packages in 1s",
        "found 0 vulnerabilities",
      ),
    ],
    [
      "apt-get install",
      "apt-get update && apt-get install -y jq",
      lines(
        "Hit:1 http://archive.ubuntu.com/ubuntu jammy InRelease",
        "Get:2 http://archive.ubuntu.com/ubuntu jammy-updates InRelease [119 kB]",
        "Fetched 119 kB in 1s (150 kB/s)",
        "Reading package lists... Done",
        "Building dependency tree... Done",
        "The following NEW packages will be installed:",
        "  jq libjq1",
        "0 upgraded, 2 newly installed, 0 to remove and 3 not upgraded.",
        "Selecting previously unselected package libjq1:amd64.",
        "(Reading database ... 4512 files and directories currently installed.)",
        "Preparing to unpack .../libjq1_1.6-2.1_amd64.deb ...",
        "Unpacking libjq1:amd64 (1.6-2.1) ...",
        "Setting up libjq1:amd64 (1.6-2.1) ...",
        "E: Sub-process /usr/bin/dpkg returned an error code (1)",
      ),
      lines(
        "Hit:1 http://archive.ubuntu.com/ubuntu jammy InRelease",
        '… (1 "Get" line)',
        "Fetched 119 kB in 1s (150 kB/s)",
        "Reading package lists... Done",
        "Building dependency tree... Done",
        "The following NEW packages will be installed:",
        "  jq libjq1",
        "0 upgraded, 2 newly installed, 0 to remove and 3 not upgraded.",
        '… (1 "Selecting previously unselected package" line, 1 "Reading database" line, 1 "Preparing to unpack" line, 1 "Unpacking" line, 1 "Setting up" line)',
        "E: Sub-process /usr/bin/dpkg returned an error code (1)",
      ),
    ],
    [
      "git log",
      "git log",
      gitLogFull,
      lines(
        "commit 1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b",
        "… (2 header lines)",
        "",
        "    Add retry to the client",
        "",
        "… (1 message line)",
        "    Fixes a timeout error seen in CI.",
        "",
        "commit 0f9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e",
        "… (3 header lines)",
        "",
        "    Merge branch 'docs'",
        "",
      ),
    ],
    [
      "git log --oneline past the cap",
      "git log --oneline",
      lines(...oneline(33), ""),
      lines(...oneline(30), "… (3 more commits)"),
    ],
    [
      "git status",
      "git status",
      lines(
        "On branch main",
        "Changes not staged for commit:",
        '  (use "git add <file>..." to update what will be committed)',
        '  (use "git restore <file>..." to discard changes in working directory)',
        "\tmodified:   src/app.ts",
        "",
        'no changes added to commit (use "git add" and/or "git commit -a")',
      ),
      lines(
        "On branch main",
        "Changes not staged for commit:",
        "… (2 git hints)",
        "\tmodified:   src/app.ts",
        "",
        'no changes added to commit (use "git add" and/or "git commit -a")',
      ),
    ],
    [
      "docker pull",
      "docker pull nginx",
      lines(
        "Using default tag: latest",
        "latest: Pulling from library/nginx",
        "a2abf6c4d29d: Pulling fs layer",
        "a9edb18cadd1: Pulling fs layer",
        "a2abf6c4d29d: Downloading [=====>     ]  3.2MB/31.4MB",
        "a2abf6c4d29d: Pull complete",
        "a9edb18cadd1: Pull complete",
        "Digest: sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
        "Status: Downloaded newer image for nginx:latest",
      ),
      lines(
        "Using default tag: latest",
        "latest: Pulling from library/nginx",
        "… (5 layer progress lines)",
        "Digest: sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31",
        "Status: Downloaded newer image for nginx:latest",
      ),
    ],
    [
      "docker build",
      "docker build -t app .",
      lines(
        "#5 [2/3] RUN npm ci",
        "#5 sha256:9f8e 12.58MB / 45.2MB 0.5s",
        "#5 extracting sha256:9f8e7d6c5b4a",
        "#5 12.1 added 120 packages in 11s",
        "#5 DONE 12.4s",
        "Step 3/4 : COPY . .",
        " ---> 4f3e2d1c0b9a",
        "Removing intermediate container 9a8b7c6d5e4f",
      ),
      lines(
        "#5 [2/3] RUN npm ci",
        "… (2 build progress lines)",
        "#5 12.1 added 120 packages in 11s",
        "#5 DONE 12.4s",
        "Step 3/4 : COPY . .",
        "… (2 build progress lines)",
      ),
    ],
    [
      "kubectl apply and rollout",
      "kubectl apply -f k8s/ && kubectl rollout status deploy/api",
      lines(
        "deployment.apps/api configured",
        "service/api unchanged",
        "configmap/api-config unchanged",
        'Waiting for deployment "api" rollout to finish: 1 of 3 updated replicas are available...',
        'Waiting for deployment "api" rollout to finish: 2 of 3 updated replicas are available...',
        'deployment "api" successfully rolled out',
      ),
      lines(
        "deployment.apps/api configured",
        "… (2 unchanged resources, 1 rollout wait)",
        'Waiting for deployment "api" rollout to finish: 2 of 3 updated replicas are available...',
        'deployment "api" successfully rolled out',
      ),
    ],
  ])("%s", (_, command, text, expected) => {
    expect(filtered(command, text)).toBe(expected);
  });

  it.each<[string, string, string]>([
    [
      "an all-error docker pull",
      "docker pull private/app",
      "a2abf6c4d29d: Downloading failed: denied",
    ],
    [
      "a git status without hints",
      "git status",
      "On branch main\nnothing to commit, working tree clean",
    ],
    ["an unknown command", "ls -la", `total 0\n${"Collecting x\n".repeat(3)}`],
    ["a mix of families", "pip install x && git status", 'Collecting x\n  (use "git add")'],
  ])("leaves %s alone", (_, command, text) => {
    expect(filtered(command, text)).toBeUndefined();
  });
});

describe("install outputs made only of bookkeeping", () => {
  const satisfied = Array.from(
    { length: 39 },
    (_, i) =>
      `Requirement already satisfied: package-${i}>=1.0 in /usr/lib/python3/dist-packages (1.${i})`,
  );
  const setup = Array.from(
    { length: 12 },
    (_, i) => `Setting up libexample${i}:amd64 (1.${i}-1) ...`,
  );
  it.each<[string, string, string, string]>([
    [
      "pip install -r",
      "pip install -r requirements.txt",
      lines(...satisfied),
      lines(satisfied[0]!, '… (37 "Requirement already satisfied" lines)', satisfied[38]!),
    ],
    [
      "apt-get install",
      "apt-get install -y libexample",
      lines(...setup, ""),
      lines(setup[0]!, '… (10 "Setting up" lines)', setup[11]!, ""),
    ],
  ])("keep what ran and how it ended for %s", (_, command, text, expected) => {
    expect(filtered(command, text)).toBe(expected);
    const outputs = toolOutputs([{ text, call: { input: { command } } }]);
    const context = fakeContext(outputs, { mode: "full" });
    expect(cmdfilter.reduce(outputs[0]!, options, context)).toBe(
      expected.endsWith("\n")
        ? `${expected}<<cg:${idOf(text)}>>`
        : `${expected}\n<<cg:${idOf(text)}>>`,
    );
    expect(context.stashed.get(idOf(text))).toBe(text);
  });
});
