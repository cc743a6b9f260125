import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const server = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, ["--import", "tsx", "src/server.ts", ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 20_000,
    env: { ...process.env, CONFIG_FILE: "", ...env },
  });

/** A stack trace's frame lines (`    at fn (file:1:2)`): never printed for a user's mistake. */
const STACK_FRAME = /^\s+at .+[:(]/m;

/** An address of this machine other than loopback, when it has one. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((item) => item?.family === "IPv4" && !item.internal)?.address;

describe("the server's command line, as npm start runs it", () => {
  it("--help prints the usage and exits 0", () => {
    const result = server(["--help"]);
    expect([result.status, result.stderr]).toEqual([0, ""]);
    expect(result.stdout).toMatch(/^Usage: cg-compactor \[--config FILE \| FILE\]/);
    expect(result.stdout).toContain("PORT, HOST, PROBE_PORT");
  });

  it.each([
    [["--port", "4000"], "Unknown option '--port'"],
    [["a.yaml", "b.yaml"], "expected at most one config file, got 2: a.yaml b.yaml"],
    [["/nonexistent/config.yaml"], "config config_file: cannot read /nonexistent/config.yaml"],
  ])("%j exits 2 with a clear message and no stack trace", (args, message) => {
    const result = server(args);
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(STACK_FRAME);
  });

  it("PORT=abc names PORT, not server.port", () => {
    const result = server([], { PORT: "abc" });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('cg-compactor: config PORT: expected a whole number, got "abc"\n');
  });

  it("a port already taken is one line naming the setting, not a stack trace", async () => {
    const taken = createServer();
    await new Promise<void>((done) => taken.listen(0, "127.0.0.1", done));
    const port = (taken.address() as { port: number }).port;
    const child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
      cwd: root,
      env: { ...process.env, CONFIG_FILE: "", HOST: "127.0.0.1", PORT: String(port) },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += String(chunk);
    });
    const [code] = await once(child, "exit");
    taken.close();
    expect(code).toBe(1);
    expect(stderr).toBe(`cg-compactor: cannot listen (server.port ${port}): EADDRINUSE\n`);
  }, 20_000);
});

describe("a sidecar's listeners: every route on loopback, the probes on the pod's address", () => {
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child?.exitCode === null) child.kill("SIGKILL");
  });

  it("serves a positional config, warns once about contradictions, and scopes its listeners", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cg-cli-"));
    const file = join(dir, "contradiction.yaml");
    // Valid, but the store will never be written to.
    writeFileSync(file, "preset: safe\nmarker_mode: off\nstore:\n  enabled: true\n");
    child = spawn(process.execPath, ["--import", "tsx", "src/server.ts", file], {
      cwd: root,
      env: {
        ...process.env,
        CONFIG_FILE: "",
        HOST: "127.0.0.1",
        PORT: "0",
        PROBE_PORT: "0",
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    const ports = await new Promise<{ main: number; probes: number }>((done, fail) => {
      child?.stdout?.on("data", (chunk) => {
        stdout += String(chunk);
        const main = /"msg":"listening".*?"port":(\d+)/.exec(stdout)?.[1];
        const probes = /"msg":"probes listening".*?"port":(\d+)/.exec(stdout)?.[1];
        if (main && probes) done({ main: Number(main), probes: Number(probes) });
      });
      child?.once("exit", (code) => fail(new Error(`server exited ${code}`)));
    });

    const loopback = await fetch(`http://127.0.0.1:${ports.main}/compact`, {
      method: "POST",
      body: '{"messages":[]}',
    });
    expect(loopback.status).toBe(200);
    const probeHost = external ?? "127.0.0.1";
    const probe = (path: string) => fetch(`http://${probeHost}:${ports.probes}${path}`);
    expect((await probe("/livez")).status).toBe(200);
    expect(await (await probe("/readyz")).json()).toEqual({
      status: "ready",
      store: "memory",
      ledger: "memory",
    });
    expect((await probe("/metrics")).status).toBe(200);
    const compact = await fetch(`http://${probeHost}:${ports.probes}/compact`, {
      method: "POST",
      body: "{}",
    });
    expect(compact.status).toBe(404);
    if (external !== undefined) {
      const refused = await fetch(`http://${external}:${ports.main}/livez`).then(
        () => "answered",
        (error: Error & { cause?: { code?: string } }) => error.cause?.code,
      );
      expect(refused).toBe("ECONNREFUSED");
    } else {
      console.warn("no non-loopback address: the loopback-only check of the main port is skipped");
    }

    child.kill("SIGTERM");
    await once(child, "exit");
    const warnings = stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { level: string; msg: string; keys?: string[] })
      .filter((line) => line.level === "warn");
    expect(warnings).toEqual([
      expect.objectContaining({
        keys: ["store.enabled", "marker_mode"],
        msg: "store.enabled is true but marker_mode is off: nothing is ever stashed, so the store stays empty; set store.enabled: false for clean mode, or marker_mode: full to keep originals",
      }),
    ]);
  }, 30_000);
});
