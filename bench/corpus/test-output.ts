import type { Project } from "./project.js";
import type { Random } from "./random.js";

const ESC = "\u001b";
const green = (text: string) => `${ESC}[32m${text}${ESC}[39m`;
const red = (text: string) => `${ESC}[31m${text}${ESC}[39m`;
const dim = (text: string) => `${ESC}[2m${text}${ESC}[22m`;
const bold = (text: string) => `${ESC}[1m${text}${ESC}[22m`;

/** One failing test of a run: its file, name and assertion. */
export interface Failure {
  readonly file: string;
  readonly test: string;
  readonly expected: string;
  readonly actual: string;
}

export function failuresFor(project: Project, random: Random, count: number): Failure[] {
  const words = [...project.words];
  return Array.from({ length: Math.min(count, words.length) }, () => {
    const [word] = words.splice(random.int(0, words.length - 1), 1) as [string];
    return {
      file: random.pick(project.tests),
      test: project.language === "python" ? `test_${word}` : word,
      expected: `T${random.int(1, 9)}`,
      actual: `T${random.int(10, 19)}`,
    };
  });
}

function rule(title: string, fill = "="): string {
  const side = Math.max(3, Math.floor((78 - title.length - 2) / 2));
  const text = `${fill.repeat(side)} ${title} ${fill.repeat(side)}`;
  return text.length < 80 ? text + fill : text;
}

/** `pytest -q`-style output of a run with the given failures (none = a passing run). */
export function pytestOutput(
  project: Project,
  random: Random,
  failures: readonly Failure[],
): string {
  const total = random.int(30, 240);
  const seconds = (random.int(40, 900) / 100).toFixed(2);
  const lines = [
    rule("test session starts"),
    "platform linux -- Python 3.11.9, pytest-8.2.1, pluggy-1.5.0",
    `rootdir: ${project.root}`,
    "configfile: pyproject.toml",
    "plugins: cov-5.0.0, xdist-3.6.1",
    `collected ${total} items`,
    "",
  ];
  let done = 0;
  project.tests.forEach((file, index) => {
    const count = index === project.tests.length - 1 ? total - done : Math.floor(total / 3);
    done += count;
    const dots = Array.from({ length: count }, (_, at) =>
      failures.some((failure) => failure.file === file) && at === Math.floor(count / 2) ? "F" : ".",
    ).join("");
    for (let at = 0; at < dots.length; at += 60) {
      const chunk = dots.slice(at, at + 60);
      const percent = Math.round(((done - count + at + chunk.length) / total) * 100);
      lines.push(
        `${`${at === 0 ? `${file} ` : ""}${chunk}`.padEnd(74)}[${String(percent).padStart(3)}%]`,
      );
    }
  });
  if (failures.length > 0) {
    lines.push("", rule("FAILURES"));
    for (const failure of failures) {
      lines.push(
        rule(failure.test, "_"),
        "",
        `    def ${failure.test}():`,
        "        subject = make_subject()",
        `>       assert subject.value == "${failure.expected}"`,
        `E       AssertionError: assert '${failure.actual}' == '${failure.expected}'`,
        `E         - ${failure.expected}`,
        `E         + ${failure.actual}`,
        "",
        `${failure.file}:${random.int(12, 300)}: AssertionError`,
      );
    }
    lines.push(rule("short test summary info"));
    for (const failure of failures) {
      lines.push(
        `FAILED ${failure.file}::${failure.test} - AssertionError: assert '${failure.actual}' == '${failure.expected}'`,
      );
    }
    lines.push(rule(`${failures.length} failed, ${total - failures.length} passed in ${seconds}s`));
  } else {
    lines.push("", rule(`${total} passed in ${seconds}s`));
  }
  return lines.join("\n");
}

/** `npm test` running vitest with colours, as a terminal-less agent captures it. */
export function vitestOutput(
  project: Project,
  random: Random,
  failures: readonly Failure[],
): string {
  const lines = [
    `> ${project.name}@1.4.0 test`,
    "> vitest run",
    "",
    ` ${bold("RUN")}  v1.6.0 ${project.root}`,
    "",
  ];
  let passed = 0;
  for (const file of project.tests) {
    const count = random.int(6, 40);
    const failed = failures.filter((failure) => failure.file === file);
    passed += count - failed.length;
    const mark = failed.length > 0 ? red("❯") : green("✓");
    const note = failed.length > 0 ? ` | ${red(`${failed.length} failed`)}` : "";
    lines.push(` ${mark} ${file} ${dim(`(${count} tests${note})`)} ${random.int(3, 90)}ms`);
    for (const failure of failed) {
      lines.push(
        `   ${red("×")} ${failure.test} > returns the resolved value`,
        `     → expected '${failure.actual}' to be '${failure.expected}'`,
      );
    }
  }
  if (failures.length > 0) lines.push("", red(`⎯⎯⎯⎯⎯⎯⎯ Failed Tests ${failures.length} ⎯⎯⎯⎯⎯⎯⎯`));
  for (const failure of failures) {
    lines.push(
      "",
      ` ${red(bold(" FAIL "))} ${failure.file} > ${failure.test} > returns the resolved value`,
      `${red(bold("AssertionError"))}: expected '${failure.actual}' to be '${failure.expected}' // Object.is equality`,
      "",
      ` ${red("❯")} ${failure.file}:${random.int(10, 200)}:${random.int(5, 40)}`,
    );
  }
  const files = project.tests.length;
  const failedFiles = new Set(failures.map((failure) => failure.file)).size;
  lines.push(
    "",
    ` Test Files  ${failedFiles > 0 ? `${red(`${failedFiles} failed`)} | ` : ""}${green(`${files - failedFiles} passed`)} (${files})`,
    `      Tests  ${failures.length > 0 ? `${red(`${failures.length} failed`)} | ` : ""}${green(`${passed} passed`)} (${passed + failures.length})`,
    `   Start at  10:${String(random.int(10, 59))}:${String(random.int(10, 59))}`,
    `   Duration  ${(random.int(80, 900) / 100).toFixed(2)}s`,
  );
  return lines.join("\n");
}
