import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import { locateOpenapi } from "../../src/routes/openapi.js";

const root = resolve(import.meta.dirname, "../..");

interface Stage {
  readonly from: string;
  readonly instructions: Array<{ readonly op: string; readonly args: string }>;
}

/** The Dockerfile's stages, each with its instructions (continuation lines joined). */
function stages(text: string): Stage[] {
  const lines = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  const result: Stage[] = [];
  for (const line of lines) {
    const [op = "", ...rest] = line.split(/\s+/);
    const args = rest.join(" ");
    if (op.toUpperCase() === "FROM") result.push({ from: args, instructions: [] });
    else result.at(-1)?.instructions.push({ op: op.toUpperCase(), args });
  }
  return result;
}

const dockerfile = readFileSync(resolve(root, "Dockerfile"), "utf8");
const all = stages(dockerfile);
const runtime = all.at(-1) as Stage;
const args = (stage: Stage, op: string) =>
  stage.instructions.filter((item) => item.op === op).map((item) => item.args);

/** package.json's `engines.node`: caret ranges joined by `||` (`^20.19.0 || ^26.0.0`). */
const engines: string = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")).engines
  .node;
const ranges = engines.split("||").map((range) => {
  const match = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range.trim());
  if (!match) throw new Error(`engines.node: ${range} is not a caret range`);
  return match.slice(1).map(Number) as [number, number, number];
});
const allows = (version: string) => {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, "").split(".").map(Number);
  return ranges.some(
    ([rMajor, rMinor, rPatch]) =>
      major === rMajor && (minor > rMinor || (minor === rMinor && patch >= rPatch)),
  );
};

describe("Dockerfile", () => {
  it("builds every stage from node:26-slim, the current LTS line", () => {
    expect(all.map((stage) => stage.from.split(" ")[0])).toEqual([
      "node:26-slim",
      "node:26-slim",
      "node:26-slim",
    ]);
  });

  it("keeps engines honest: the Node CI tests and the image's Node, nothing else", () => {
    const imageMajor = Number(/^node:(\d+)-/.exec(all[0]?.from ?? "")?.[1]);
    // 20: the Node CI runs the suite on (the machine's); the other line is the image's.
    expect(ranges.map(([major]) => major)).toEqual([20, imageMajor]);
    expect(allows(process.version)).toBe(true);
    expect(["21.0.0", "22.12.0", "24.0.0", "20.0.0"].filter(allows)).toEqual([]);
  });

  it("installs with npm ci and compiles with npm run build", () => {
    const build = all.find((stage) => stage.from.endsWith("AS build")) as Stage;
    expect(args(build, "RUN")).toEqual(["npm ci --no-audit --no-fund", "npm run build"]);
    const deps = all.find((stage) => stage.from.endsWith("AS deps")) as Stage;
    expect(args(deps, "RUN")[0]).toMatch(/^npm ci --omit=dev /);
  });

  it("runs production dependencies only, as a numeric non-root user, on port 4000", () => {
    expect(args(runtime, "COPY")).toContain("--from=deps /app/node_modules ./node_modules");
    expect(
      args(runtime, "COPY").some((item) => item.startsWith("--from=build /app/node_modules")),
    ).toBe(false);
    const [user = ""] = args(runtime, "USER");
    expect(user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    expect(args(runtime, "EXPOSE")).toEqual([String(parseConfig({}).server.port)]);
  });

  it("starts the file tsconfig.build.json compiles src/server.ts to", () => {
    const build = JSON.parse(readFileSync(resolve(root, "tsconfig.build.json"), "utf8"));
    const base = JSON.parse(readFileSync(resolve(root, "tsconfig.json"), "utf8"));
    const rootDir: string = build.compilerOptions.rootDir ?? base.compilerOptions.rootDir;
    const entry = posix.join(
      build.compilerOptions.outDir,
      posix.relative(rootDir, "src/server.ts").replace(/\.ts$/, ".js"),
    );
    // An entrypoint, so arguments given to the container reach the server (`--config FILE`).
    expect(JSON.parse(args(runtime, "ENTRYPOINT")[0] ?? "[]")).toEqual(["node", entry]);
    expect(args(runtime, "CMD")).toEqual([]);
  });

  it("ships openapi.yaml where the compiled route finds it", () => {
    expect(args(runtime, "COPY")).toContain("package.json openapi.yaml ./");
    const [workdir = ""] = args(runtime, "WORKDIR");
    const image = mkdtempSync(join(tmpdir(), "cg-image-"));
    const app = join(image, workdir);
    mkdirSync(join(app, "dist/src/routes"), { recursive: true });
    writeFileSync(join(app, "openapi.yaml"), "openapi: 3.1.0\n");
    expect(locateOpenapi(join(app, "dist/src/routes"), "/")).toBe(join(app, "openapi.yaml"));
  });

  it(".dockerignore keeps out local state but nothing the build copies", () => {
    const ignored = readFileSync(resolve(root, ".dockerignore"), "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"));
    const copied = all
      .flatMap((stage) => args(stage, "COPY"))
      .filter((item) => !item.startsWith("--from"))
      .flatMap((item) => item.split(" ").slice(0, -1));
    expect(copied.filter((path) => ignored.includes(path))).toEqual([]);
    expect(ignored).toEqual(expect.arrayContaining(["node_modules", "dist", ".git", ".env"]));
  });
});

const dockerDaemon =
  spawnSync("docker", ["info"], { encoding: "utf8", timeout: 20_000 }).status === 0;
if (!dockerDaemon) console.warn("no Docker daemon: the image build is skipped");

describe.skipIf(!dockerDaemon)("docker build", () => {
  it("builds the image", () => {
    const result = spawnSync("docker", ["build", "-t", "cg-compactor:0.1.0", "."], {
      cwd: root,
      encoding: "utf8",
      timeout: 900_000,
    });
    expect(result.status, result.stderr.slice(-2000)).toBe(0);
  }, 900_000);
});
