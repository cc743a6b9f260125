import type { Project } from "./project.js";
import type { Random } from "./random.js";

const ESC = "\u001b";
const AUTHORS = ["Ana Ruiz", "Kenji Sato", "Priya Nair", "Tom Becker", "Zoë Laurent"];
const DIRECTORIES = new Set([".", "..", ".git", ".github"]);
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun"];

/** `grep -rn PATTERN DIR`: one `path:line:text` hit per match. */
export function grepOutput(
  project: Project,
  random: Random,
  pattern: string,
  files: ReadonlyMap<string, readonly string[]>,
): string {
  const hits: string[] = [];
  for (const [path, lines] of files) {
    lines.forEach((line, index) => {
      if (line.includes(pattern)) hits.push(`${relative(project, path)}:${index + 1}:${line}`);
    });
  }
  if (hits.length === 0) {
    for (let at = 0; at < random.int(3, 12); at++) {
      hits.push(
        `${relative(project, random.pick(project.sources))}:${random.int(1, 400)}:    ${pattern}(${random.pick(["name", "items", "value"])})`,
      );
    }
  }
  return hits.join("\n");
}

export function gitStatus(project: Project, modified: readonly string[]): string {
  const lines = [
    "On branch fix/issue-4411",
    "Your branch is up to date with 'origin/fix/issue-4411'.",
    "",
  ];
  if (modified.length === 0) return [...lines, "nothing to commit, working tree clean"].join("\n");
  lines.push(
    "Changes not staged for commit:",
    '  (use "git add <file>..." to update what will be committed)',
    '  (use "git restore <file>..." to discard changes in working directory)',
  );
  for (const path of modified) lines.push(`\tmodified:   ${relative(project, path)}`);
  lines.push("", 'no changes added to commit (use "git add" and/or "git commit -a")');
  return lines.join("\n");
}

export function gitLog(project: Project, random: Random, count: number): string {
  const lines: string[] = [];
  for (let at = 0; at < count; at++) {
    const word = random.pick(project.words);
    lines.push(
      `commit ${random.hex(40)}`,
      `Author: ${random.pick(AUTHORS)} <dev${random.int(1, 40)}@example.com>`,
      `Date:   ${random.pick(["Mon", "Tue", "Wed", "Thu", "Fri"])} ${random.pick(MONTHS)} ${random.int(1, 28)} ${random.int(10, 23)}:${random.int(10, 59)}:${random.int(10, 59)} 2024 +0200`,
      "",
      `    ${random.pick(["Fix", "Refactor", "Speed up", "Document", "Test"])} ${word.replace(/_/g, " ")} handling`,
      "",
    );
  }
  return lines.join("\n").trimEnd();
}

export function gitDiff(
  project: Project,
  random: Random,
  path: string,
  lines: readonly string[],
): string {
  const at = random.int(1, Math.max(1, lines.length - 12));
  const context = lines.slice(at - 1, at + 9);
  const changed = random.int(2, 5);
  const out = [
    `diff --git a/${relative(project, path)} b/${relative(project, path)}`,
    `index ${random.hex(7)}..${random.hex(7)} 100644`,
    `--- a/${relative(project, path)}`,
    `+++ b/${relative(project, path)}`,
    `@@ -${at},${context.length} +${at},${context.length + 1} @@`,
  ];
  context.forEach((line, index) => {
    if (index === changed)
      out.push(
        `-${line}`,
        `+${line.replace(/\bname\b|\bvalue\b/, "key")}`,
        `+${" ".repeat(line.length - line.trimStart().length)}# keep aliases stable across combines`,
      );
    else out.push(` ${line}`);
  });
  return out.join("\n");
}

export function lsOutput(project: Project, random: Random): string {
  const entries = [
    ".",
    "..",
    ".git",
    ".github",
    "README.md",
    project.language === "python" ? "pyproject.toml" : "package.json",
    project.language === "python" ? project.name : "src",
    project.language === "python" ? "tests" : "test",
    "docs",
    "scripts",
    ".gitignore",
    "LICENSE",
  ];
  const lines = [`total ${random.int(40, 200)}`];
  for (const entry of entries) {
    const directory = DIRECTORIES.has(entry) || !/[.A-Z]/.test(entry);
    lines.push(
      `${directory ? "drwxr-xr-x" : "-rw-r--r--"}  ${random.int(1, 12)} dev dev ${String(random.int(64, 18000)).padStart(6)} ${random.pick(MONTHS)} ${String(random.int(1, 28)).padStart(2)} ${random.int(10, 23)}:${random.int(10, 59)} ${entry}`,
    );
  }
  return lines.join("\n");
}

/** `npm install` with its carriage-return progress bar redraws and a deprecation warning. */
export function npmInstall(random: Random): string {
  const frames: string[] = [];
  const steps = random.int(12, 30);
  for (let step = 0; step <= steps; step++) {
    const filled = Math.round((step / steps) * 20);
    frames.push(
      `\r${ESC}[2K[${"#".repeat(filled)}${".".repeat(20 - filled)}] ⠋ reify:${random.pick(["lodash", "zod", "hono", "vite", "esbuild", "typescript"])}: timing reifyNode`,
    );
  }
  const added = random.int(120, 900);
  return [
    frames.join(""),
    `\r${ESC}[2K${ESC}[33mnpm${ESC}[39m ${ESC}[33mWARN${ESC}[39m deprecated inflight@1.0.6: This module is not supported, and leaks memory.`,
    "",
    `added ${added} packages, and audited ${added + 1} packages in ${random.int(2, 40)}s`,
    "",
    `${random.int(40, 160)} packages are looking for funding`,
    "  run `npm fund` for details",
    "",
    "found 0 vulnerabilities",
  ].join("\n");
}

/** `docker build` plain progress output, with repeated layer lines. */
export function dockerBuild(project: Project, random: Random): string {
  const lines = [
    `#0 building with "default" instance using docker driver`,
    "",
    "#1 [internal] load build definition from Dockerfile",
    "#1 transferring dockerfile: 612B done",
    "#1 DONE 0.0s",
  ];
  const steps = [
    "FROM node:20-slim",
    "WORKDIR /app",
    "COPY package*.json ./",
    "RUN npm ci --omit=dev",
    "COPY . .",
    "RUN npm run build",
    'CMD ["node", "dist/server.js"]',
  ];
  steps.forEach((step, index) => {
    const id = index + 2;
    lines.push(`#${id} [${index + 1}/${steps.length}] ${step}`);
    if (step.startsWith("RUN")) {
      for (let tick = 0; tick < random.int(8, 30); tick++) {
        lines.push(
          `#${id} ${(tick * 0.37).toFixed(3)} npm http fetch GET 200 https://registry.npmjs.org/${random.pick(project.words).replace(/_/g, "-")} ${random.int(5, 300)}ms (cache hit)`,
        );
      }
    }
    lines.push(`#${id} DONE ${(random.int(0, 400) / 10).toFixed(1)}s`);
  });
  lines.push(
    `#${steps.length + 2} exporting to image`,
    `#${steps.length + 2} writing image sha256:${random.hex(64)} done`,
    `#${steps.length + 2} naming to docker.io/library/${project.name}:dev done`,
  );
  return lines.join("\n");
}

export function relative(project: Project, path: string): string {
  return path.startsWith(`${project.root}/`) ? path.slice(project.root.length + 1) : path;
}
