import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { suites } from "../vitest.config.js";

/**
 * The suites together run every test file exactly once, as vitest itself resolves them
 * (`vitest list`), and `npm test` (the `unit` suite) needs nothing but Node.js.
 */
const root = resolve(import.meta.dirname, "..");

/** Every file of test/ that vitest or a contributor would take for a test file. */
const testFiles = readdirSync(join(root, "test"), { recursive: true, encoding: "utf8" })
  .filter((path) => /\.(?:test|spec)\.[cm]?[jt]sx?$/.test(path))
  .map((path) => `test/${path.split("\\").join("/")}`)
  .sort();

function listed(): Array<{ file: string; suite: string }> {
  const vitest = join(root, "node_modules/vitest/vitest.mjs");
  const output = execFileSync(process.execPath, [vitest, "list", "--filesOnly", "--json"], {
    cwd: root,
    encoding: "utf8",
    // The listing is this vitest's own, not a nested run of the one running this file.
    env: Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith("VITEST")),
    ),
  });
  const entries = JSON.parse(output) as Array<{ file: string; projectName: string }>;
  return entries.map((entry) => ({
    file: relative(root, entry.file).split("\\").join("/"),
    suite: entry.projectName,
  }));
}

const importsOf = new Map<string, string[]>();

/** Paths a file imports from inside the repository (`./x.js` read as `./x.ts`). */
function localImports(file: string): string[] {
  const known = importsOf.get(file);
  if (known) return known;
  const source = readFileSync(join(root, file), "utf8");
  const paths: string[] = [];
  for (const match of source.matchAll(/\bfrom\s+"(\.{1,2}\/[^"]+)"/g)) {
    const target = join(dirname(file), (match[1] as string).replace(/\.js$/, ".ts"));
    if (existsSync(join(root, target))) paths.push(target.split("\\").join("/"));
  }
  importsOf.set(file, paths);
  return paths;
}

/** Whether `file`, or anything it imports from the repository, imports `module`. */
function reaches(file: string, module: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  return localImports(file).some((path) => path === module || reaches(path, module, seen));
}

describe("test suites", () => {
  const files = listed();
  const suiteOf = new Map<string, string[]>();
  for (const { file, suite } of files) suiteOf.set(file, [...(suiteOf.get(file) ?? []), suite]);

  it("run every test file exactly once", () => {
    const placed = testFiles.map((file) => ({ file, suites: suiteOf.get(file) ?? [] }));
    expect(placed.filter((entry) => entry.suites.length !== 1)).toEqual([]);
    expect([...suiteOf.keys()].sort()).toEqual(testFiles);
  });

  it("name only files and folders that hold test files", () => {
    const stale: string[] = [];
    for (const [name, suite] of Object.entries(suites)) {
      for (const pattern of suite.include) {
        const glob = pattern.search(/[*?[{]/);
        const prefix = glob === -1 ? pattern : pattern.slice(0, pattern.lastIndexOf("/", glob) + 1);
        const held = files.some(
          ({ file, suite: owner }) =>
            owner === name && (glob === -1 ? file === prefix : file.startsWith(prefix)),
        );
        if (!held) stale.push(`${name}: ${pattern}`);
      }
      for (const path of suite.exclude)
        if (!existsSync(join(root, path))) stale.push(`${name} excludes ${path}`);
    }
    expect(stale).toEqual([]);
  });

  it("each have an npm script, with a row in the README", () => {
    const { scripts } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    };
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const commands = [
      { suite: "unit", script: "test", command: "npm test" },
      ...Object.keys(suites).map((suite) => ({
        suite,
        script: `test:${suite}`,
        command: `npm run test:${suite}`,
      })),
    ];
    const missing: string[] = [];
    for (const { suite, script, command } of commands) {
      if (!scripts[script]?.endsWith(`vitest run --project ${suite}`)) missing.push(script);
      if (!readme.includes(`| \`${command}\` | \`${suite}\``)) missing.push(`README: ${command}`);
    }
    expect(missing).toEqual([]);
    expect(scripts["test:all"]).toBe("npm run typecheck && vitest run");
  });

  it("leave `unit` with no file that starts a redis-server", () => {
    const needsRedis = files
      .filter(({ suite }) => suite === "unit")
      .map(({ file }) => file)
      .filter((file) => reaches(file, "test/support/redis-server.ts"));
    expect(needsRedis).toEqual([]);
  });
});
