import { apiArray, manifest, podList } from "./json-output.js";
import type { Project } from "./project.js";
import type { Random } from "./random.js";
import {
  dockerBuild,
  gitDiff,
  gitLog,
  gitStatus,
  grepOutput,
  lsOutput,
  npmInstall,
  relative,
} from "./shell-output.js";
import { numbered, sourceFile } from "./source.js";
import { type Failure, failuresFor, pytestOutput, vitestOutput } from "./test-output.js";

/** One tool call of a step and the output it produced. */
export interface ScriptCall {
  readonly tool: "Read" | "Bash";
  readonly input: Readonly<Record<string, string | number>>;
  readonly output: string;
  readonly isError: boolean;
}

/** One assistant turn: optional text, then one or more tool calls answered together. */
export interface ScriptStep {
  readonly text: string;
  readonly calls: readonly ScriptCall[];
}

/**
 * The course of one agent session over a project: look around, run the failing tests, search
 * and read code, edit, diff, re-run until the tests pass, with the usual repeats (re-reading a
 * file, `git status` twice) and noisy outputs (installs, builds, JSON APIs).
 */
export function writeScript(project: Project, random: Random, steps: number): ScriptStep[] {
  const files = new Map<string, string[]>();
  const fileOf = (path: string): string[] => {
    let lines = files.get(path);
    if (!lines) {
      lines = sourceFile(project, random.fork());
      files.set(path, lines);
    }
    return lines;
  };
  const modified: string[] = [];
  let failures: Failure[] = failuresFor(project, random, random.int(2, 4));
  const reads: ScriptCall[] = [];
  const script: ScriptStep[] = [];
  const bash = (command: string, output: string, isError = false): ScriptCall => ({
    tool: "Bash",
    input: { command },
    output,
    isError,
  });
  const read = (): ScriptCall => {
    const path = random.pick(project.sources);
    const lines = fileOf(path);
    const offset = random.int(1, Math.max(1, lines.length - 40));
    const limit = random.pick([40, 80, 120, 200, 400]);
    const call: ScriptCall = {
      tool: "Read",
      input: { file_path: path, offset, limit },
      output: numbered(lines, offset, limit),
      isError: false,
    };
    reads.push(call);
    return call;
  };
  const testRun = (): ScriptCall => {
    const python = project.language === "python";
    const output = python
      ? pytestOutput(project, random, failures)
      : vitestOutput(project, random, failures);
    return bash(python ? "python -m pytest -q" : "npm test", output, failures.length > 0);
  };
  const opening: ScriptCall[] = [
    bash("ls -la", lsOutput(project, random)),
    bash(
      project.language === "python" ? "cat pyproject.toml" : "cat package.json",
      manifest(project),
    ),
    project.language === "python"
      ? bash("pip install -e '.[test]'", pipInstall(project, random))
      : bash("npm install", npmInstall(random)),
    bash("git status", gitStatus(project, modified)),
    bash(`git log -n ${random.int(5, 15)}`, gitLog(project, random, random.int(5, 15))),
    testRun(),
  ];
  for (const call of opening) script.push({ text: `Running ${call.tool}.`, calls: [call] });

  const fixAt = Math.max(script.length + 2, Math.floor(steps * 0.8));
  while (script.length < steps) {
    const roll = random.next();
    let calls: ScriptCall[];
    if (script.length >= fixAt && failures.length > 0) {
      failures = failures.slice(1);
      calls = [testRun()];
    } else if (roll < 0.3) {
      calls = random.chance(0.25) ? [read(), read()] : [read()];
    } else if (roll < 0.4 && reads.length > 0) {
      calls = [random.pick(reads)];
    } else if (roll < 0.5) {
      const pattern = random.pick(project.words);
      for (const path of project.sources.slice(0, 3)) fileOf(path);
      const hits = grepOutput(project, random, pattern, files);
      calls = [
        bash(
          `grep -rn "${pattern}" ${project.language === "python" ? project.name : "src"}/`,
          hits,
        ),
      ];
    } else if (roll < 0.58) {
      const path = random.pick(project.sources);
      if (!modified.includes(path)) modified.push(path);
      calls = [bash(`sed -i 's/name/key/' ${relative(project, path)}`, "")];
    } else if (roll < 0.64 && modified.length > 0) {
      const path = random.pick(modified);
      calls = [
        bash(`git diff ${relative(project, path)}`, gitDiff(project, random, path, fileOf(path))),
      ];
    } else if (roll < 0.7) {
      calls = [bash("git status", gitStatus(project, modified))];
    } else if (roll < 0.76) {
      calls = [testRun()];
    } else if (roll < 0.82) {
      calls = [
        random.chance(0.5)
          ? bash(
              `curl -s https://status.internal/api/v1/services?team=${project.name}`,
              apiArray(project, random),
            )
          : bash("kubectl get pods -o json", podList(project, random)),
      ];
    } else if (roll < 0.88) {
      calls = [
        project.language === "python"
          ? bash("pip install -e '.[test]'", pipInstall(project, random))
          : bash("npm install", npmInstall(random)),
      ];
    } else if (roll < 0.92) {
      calls = [bash(`docker build -t ${project.name}:dev .`, dockerBuild(project, random))];
    } else {
      calls = [read()];
    }
    const tools = calls.map((call) => call.tool).join(" and ");
    script.push({ text: random.chance(0.3) ? `Let me check this with ${tools}.` : "", calls });
  }
  return script;
}

function pipInstall(project: Project, random: Random): string {
  const lines = [`Obtaining file://${project.root}`, "  Installing build dependencies ... done"];
  for (const name of ["sqlparse", "asgiref", "pytest", "pluggy", "iniconfig", "packaging"]) {
    const size = random.int(20, 900);
    const speed = `${random.int(1, 40)}.${random.int(0, 9)} MB/s`;
    const frames = [0.1, 0.35, 0.6, 0.85, 1].map((share) => {
      const bar = Math.round(share * 40);
      const eta = share < 1 ? "0:00:01" : "0:00:00";
      return `     ${"━".repeat(bar)}${" ".repeat(40 - bar)} ${(size * share).toFixed(1)}/${size}.0 kB ${speed} eta ${eta}`;
    });
    lines.push(
      `Collecting ${name}`,
      `  Downloading ${name}-${random.int(1, 9)}.${random.int(0, 20)}.0-py3-none-any.whl (${size} kB)`,
      frames.join("\r"),
    );
  }
  lines.push(`Successfully installed ${project.name}-2.3.1 asgiref-3.8.1 sqlparse-0.5.0`);
  return lines.join("\n");
}
