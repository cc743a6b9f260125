import { describe, expect, it } from "vitest";
import { commandOf, commandsOf, pipelinesOf } from "../../../src/components/cmdfilter/command.js";
import { filterFor } from "../../../src/components/cmdfilter/index.js";
import type { ToolCall } from "../../../src/wire/types.js";

const call = (input: unknown): ToolCall => ({ id: "call_1", name: "Bash", input });

describe("commandOf", () => {
  it.each<[string, ToolCall | undefined, string | undefined]>([
    ["input.command", call({ command: "ls -la" }), "ls -la"],
    ["input.cmd", call({ cmd: "git status" }), "git status"],
    ["an argv array", call({ command: ["git", "log", "-n", "3"] }), "git log -n 3"],
    ["no call", undefined, undefined],
    ["unparseable arguments", call(undefined), undefined],
    ["a non-string command", call({ command: 5 }), undefined],
    ["a mixed array", call({ command: ["git", 1] }), undefined],
    ["an empty array", call({ command: [] }), undefined],
    ["a file read", call({ file_path: "/src/app.ts" }), undefined],
  ])("reads %s", (_, toolCall, expected) => {
    expect(commandOf(toolCall)).toBe(expected);
  });
});

describe("commandsOf", () => {
  it.each<[string, string, string[][]]>([
    ["a plain command", "pytest -q", [["pytest", "-q"]]],
    [
      "cd and a pipe",
      "cd /repo && python -m pytest -x tests 2>&1 | tail -30",
      [["pytest", "-x", "tests"]],
    ],
    ["redirections", "grep -rn foo src 2>/dev/null >out.txt", [["grep", "-rn", "foo", "src"]]],
    [
      "quotes hiding separators",
      `grep -n "a;b|c" 'x && y' f`,
      [["grep", "-n", "a;b|c", "x && y", "f"]],
    ],
    ["an escaped quote", `grep "say \\"hi\\"" f`, [["grep", 'say "hi"', "f"]]],
    [
      "assignments and wrappers",
      "sudo DEBIAN_FRONTEND=noninteractive timeout 60 apt-get install -y jq",
      [["apt-get", "install", "-y", "jq"]],
    ],
    [
      "runners",
      "npx --yes jest --ci; uv run pytest; pnpm exec vitest",
      [["jest", "--ci"], ["pytest"], ["vitest"]],
    ],
    ["a python script", "python3 tests/runtests.py forms_tests", [["runtests.py", "forms_tests"]]],
    ["python -c", `python3 -c "import sys"`, [["python3", "-c", "import sys"]]],
    [
      "uv pip",
      "uv pip install -r requirements.txt",
      [["pip", "install", "-r", "requirements.txt"]],
    ],
    ["a full program path", "/usr/bin/git log", [["git", "log"]]],
    ["bash -c", `bash -lc "cd /app && npm test"`, [["npm", "test"]]],
    [
      "comments and trivial commands",
      "echo start # note\nexport X=1\ngit status",
      [["git", "status"]],
    ],
    ["a subshell", "(cd sub && make) || true", [["make"]]],
    [
      "background and or",
      "sleep 1 & git diff || git status",
      [
        ["git", "diff"],
        ["git", "status"],
      ],
    ],
  ])("splits %s", (_, command, expected) => {
    expect(commandsOf(command)).toEqual(expected);
  });
});

describe("pipelinesOf", () => {
  it.each<[string, string, string[][][]]>([
    [
      "later stages",
      "cd /repo && cat app.log | grep -n ERROR | head -5",
      [
        [
          ["cat", "app.log"],
          ["grep", "-n", "ERROR"],
          ["head", "-5"],
        ],
      ],
    ],
    ["bash -c", `bash -c "git diff | head"`, [[["git", "diff"], ["head"]]]],
    ["trivial pipelines", "echo hi | cat; cd x", []],
  ])("splits %s", (_, command, expected) => {
    expect(pipelinesOf(command)).toEqual(expected);
  });
});

describe("filterFor", () => {
  it.each<[string, string | undefined]>([
    ["cd /repo && python -m pytest -q tests 2>&1 | tail -30", "pytest"],
    ["python3 tests/runtests.py forms_tests -v 1 2>&1 | grep -E 'Ran|OK'", "pytest"],
    ["python manage.py test app", "pytest"],
    ["npx vitest run", "jest"],
    ["yarn test --watch=false", "jest"],
    ["npm run test", "jest"],
    ["sudo apt-get -y install jq", "install"],
    ["pip3 install requests", "install"],
    ["npm ci", "install"],
    ["yarn", "install"],
    ["git --no-pager log -n 5", "git-log"],
    ["git status", "git-status"],
    // Diffs and search results are facts, collapsed only over a budget (fact-collapse.ts).
    ["git -C repo diff HEAD~1", undefined],
    ["git show HEAD", undefined],
    ["rg -n foo src | head", undefined],
    ["git grep -n foo", undefined],
    ["docker compose pull", "containers"],
    ["kubectl apply -f k8s/ && kubectl rollout status deploy/api", "containers"],
    ["ls -la", undefined],
    ["git log && pytest", undefined],
    ["git log; git status", undefined],
    ["echo hi", undefined],
    ["npm run build", undefined],
    ["pip list", undefined],
    ["git commit -m 'fix'", undefined],
    ["python3 - <<'EOF'\nimport os\nEOF", undefined],
    ["", undefined],
  ])("%j → %s", (command, expected) => {
    expect(filterFor(command)?.filter.name).toBe(expected);
  });
});
