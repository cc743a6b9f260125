import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { tinyMessagesBody } from "../../bench/large-bodies.js";
import { type ServerChild, startServerChild } from "../../bench/server-child.js";

/**
 * The shipped combination holds (§10): the server process runs with the heap flag and config of
 * k8s/base and survives the worst body of each kind at the body limit — 32 MiB of one-word
 * messages to /compact, 12 MiB of them to /rehydrate (restored when alone), eight of each at
 * once — answering every one and staying within the container's memory limit (peak resident
 * memory, VmHWM).
 */
const root = resolve(import.meta.dirname, "../..");
const MIB = 1024 * 1024;

interface Container {
  env: Array<{ name: string; value?: string }>;
  resources: { limits: { memory: string } };
}
const deployment = parseYaml(readFileSync(resolve(root, "k8s/base/deployment.yaml"), "utf8")) as {
  spec: { template: { spec: { containers: Container[] } } };
};
const container = deployment.spec.template.spec.containers[0] as Container;
const nodeOptions = container.env.find((entry) => entry.name === "NODE_OPTIONS")?.value ?? "";
const memoryLimit = Number(/^(\d+)Mi$/.exec(container.resources.limits.memory)?.[1]) * MIB;
const config = readFileSync(resolve(root, "k8s/base/config.yaml"), "utf8");

let server: ServerChild;
let base: string;
beforeAll(async () => {
  server = await startServerChild(config, { NODE_OPTIONS: nodeOptions });
  base = `http://127.0.0.1:${server.port}`;
});
afterAll(() => {
  server.process.kill("SIGKILL");
});

const peakResident = () =>
  Number(
    /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.process.pid}/status`, "utf8"))?.[1],
  ) * 1024;

async function post(path: string, body: string): Promise<{ status: number; original: boolean }> {
  const response = await fetch(`${base}${path}`, {
    method: "POST",
    body,
    headers: { "content-type": "application/json" },
  });
  return { status: response.status, original: (await response.text()) === body };
}

async function alive(): Promise<void> {
  expect(server.process.exitCode).toBeNull();
  expect((await fetch(`${base}/livez`)).status).toBe(200);
}

describe("the shipped heap and memory limit", { timeout: 120_000 }, () => {
  it("are what this test runs with", () => {
    expect(nodeOptions).toMatch(/^--max-old-space-size=\d+$/);
    expect(memoryLimit).toBeGreaterThan(0);
  });

  it("survive 874k one-word messages in 32 MiB on /compact, once and eight at a time", async () => {
    const worst = tinyMessagesBody(32 * MIB);
    expect(worst.length).toBeLessThanOrEqual(32 * MIB);

    expect(await post("/compact", worst)).toEqual({ status: 200, original: true });
    await alive();
    const eight = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        post("/compact", worst.replace('"model":"m"', `"model":"m${index}"`)),
      ),
    );
    expect(eight).toEqual(Array.from({ length: 8 }, () => ({ status: 200, original: true })));
    await alive();
    expect(peakResident()).toBeLessThan(memoryLimit);
  });

  it("survive 12 MiB of one-word messages on /rehydrate, once and eight at a time", async () => {
    const worst = tinyMessagesBody(12 * MIB);
    // 330k messages brought down the process at a heap bound of 384 MiB.
    expect(worst.split('{"role"').length - 1).toBeGreaterThan(330_000);

    // One alone is restored (nothing to restore: the body itself), not refused: 330k messages
    // cost no lookup each, and the rehydration deadline is not the compaction one.
    const alone = await post("/rehydrate", worst);
    expect(alone).toEqual({ status: 200, original: true });
    const answered = [alone];
    await alive();
    answered.push(
      ...(await Promise.all(Array.from({ length: 8 }, () => post("/rehydrate", worst)))),
    );
    await alive();

    // Eight at once: restored, refused as too costly, busy or past the deadline; never a crash.
    for (const { status, original } of answered) {
      expect([200, 413, 503]).toContain(status);
      if (status === 200) expect(original).toBe(true);
    }
    expect(peakResident()).toBeLessThan(memoryLimit);
  });
});
