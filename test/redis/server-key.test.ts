import { type ChildProcess, spawn } from "node:child_process";
import { resolve } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { markerIds } from "../../src/expand/markers.js";
import { openaiBody } from "../support/bodies.js";
import { type RedisServer, startRedisServer } from "../support/redis-server.js";
import { generatedOutputs, redisSuiteSkipped } from "./replicas.js";

const skipped = redisSuiteSkipped("the server marker key tests");
const root = resolve(import.meta.dirname, "../..");

interface Started {
  readonly child: ChildProcess;
  /** Resolves with the base URL once the server logs that it listens. */
  readonly listening: Promise<string>;
  readonly output: () => string;
}

/** `src/server.ts` as the image runs it, on the Redis store with no store.hash_key. */
function startServer(redisUrl: string): Started {
  const child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
    cwd: root,
    env: {
      ...process.env,
      CONFIG_FILE: "configs/reversible-redis.yaml",
      REDIS_URL: redisUrl,
      PORT: "0",
      HOST: "127.0.0.1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const listening = new Promise<string>((done, fail) => {
    child.stdout?.on("data", (chunk) => {
      output += String(chunk);
      const port = /"msg":"listening".*"port":(\d+)/.exec(output)?.[1];
      if (port) done(`http://127.0.0.1:${port}`);
    });
    child.stderr?.on("data", (chunk) => {
      output += String(chunk);
    });
    child.once("exit", (code) => fail(new Error(`server exited ${code}: ${output}`)));
  });
  listening.catch(() => undefined);
  return { child, listening, output: () => output };
}

async function compactAt(base: string, body: string, session: string): Promise<string> {
  const response = await fetch(`${base}/compact`, {
    method: "POST",
    body,
    headers: {
      "content-type": "application/json",
      "x-context-guru-session": session,
      // Decided whole (§4a), so the older outputs are masked and carry markers.
      "x-context-guru-cache": "cold",
    },
  });
  return response.text();
}

describe.skipIf(skipped)("server processes on one Redis without store.hash_key", () => {
  let redis: RedisServer;
  const started: Started[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(() => {
    for (const server of started.splice(0)) server.child.kill("SIGKILL");
  });
  afterAll(() => redis?.close());

  it("agree on the marker key: the same body gets the same ids from either process", async () => {
    const servers = [startServer(redis.url), startServer(redis.url)];
    started.push(...servers);
    const [one, two] = await Promise.all(servers.map((server) => server.listening));
    const body = openaiBody(generatedOutputs("processes"));
    const first = await compactAt(one as string, body, "tenant-a");
    const second = await compactAt(two as string, body, "tenant-b");
    expect(markerIds(first).length).toBeGreaterThan(0);
    expect(second).toBe(first);
  }, 60_000);

  it("waits for Redis at start, saying so, and serves once it answers", async () => {
    await redis.stop();
    const server = startServer(redis.url);
    started.push(server);
    const deadline = Date.now() + 20_000;
    while (!server.output().includes("waiting for Redis to read the shared marker key")) {
      if (Date.now() > deadline) throw new Error(`no waiting line: ${server.output()}`);
      await new Promise((done) => setTimeout(done, 50));
    }
    expect(server.output()).not.toContain('"msg":"listening"');
    await redis.start();
    const base = await server.listening;
    expect((await fetch(`${base}/livez`)).status).toBe(200);
  }, 60_000);
});
