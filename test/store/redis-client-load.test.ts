import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const source = (path: string) => pathToFileURL(join(ROOT, path)).href;

/**
 * Runs `body` in a child process (V8 built-ins are asked about there) after the modules the
 * server loads, and answers whether ioredis was loaded and whether `String.prototype` still has
 * fast properties — the condition under which V8 inlines `charCodeAt` in character loops.
 */
function probe(body: string): { ioredis: boolean; fastStrings: boolean } {
  const script = join(mkdtempSync(join(tmpdir(), "cg-ioredis-")), "probe.mts");
  writeFileSync(
    script,
    [
      `import { createRequire } from "node:module";`,
      `import { storeSchema } from "${source("src/config/schema.ts")}";`,
      `import { createStore } from "${source("src/store/create.ts")}";`,
      `import { createRedisClient } from "${source("src/store/redis-client.ts")}";`,
      `await import("${source("src/app.ts")}");`,
      `await import("${source("src/hash-key/resolve.ts")}");`,
      body,
      `const loaded = Object.keys(createRequire(import.meta.url).cache)`,
      `  .some((file) => file.includes("/node_modules/ioredis/"));`,
      `const fast = new Function("return %HasFastProperties(String.prototype)")();`,
      `console.log(JSON.stringify({ ioredis: loaded, fastStrings: fast }));`,
      `void createStore; void createRedisClient; void storeSchema;`,
    ].join("\n"),
  );
  const result = spawnSync(
    process.execPath,
    ["--allow-natives-syntax", "--import", "tsx", script],
    { cwd: ROOT, encoding: "utf8", timeout: 30_000 },
  );
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout.trim().split("\n").at(-1) as string);
}

describe("ioredis is loaded only by a process that uses Redis", () => {
  it("a process on the memory store never loads it, and keeps its string loops fast", () => {
    expect(probe(`createStore(storeSchema.parse({}));`)).toEqual({
      ioredis: false,
      fastStrings: true,
    });
  });

  it("the first Redis client loads it, which is what the memory store is spared", () => {
    const client = [
      `const client = createRedisClient(`,
      `  { mode: "standalone", url: "redis://127.0.0.1:9", nodes: [], key_prefix: "cg:" },`,
      `  { offlineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 50 },`,
      `);`,
      `client.on("error", () => {});`,
      `client.disconnect();`,
    ].join("\n");
    expect(probe(client)).toEqual({ ioredis: true, fastStrings: false });
  });
});
