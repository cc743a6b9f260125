import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sample } from "../observability/prometheus-text.js";
import { logOutput, openaiBody } from "../support/bodies.js";

const root = resolve(import.meta.dirname, "../..");

/** A WebSocket client's opening handshake on a raw socket: all the server sent until it ended. */
async function handshake(base: string, path: string): Promise<string> {
  const { hostname, port } = new URL(base);
  const socket = connect(Number(port), hostname);
  socket.write(
    [
      `GET ${path} HTTP/1.1`,
      `host: ${hostname}:${port}`,
      "connection: Upgrade",
      "upgrade: websocket",
      "sec-websocket-version: 13",
      "sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==",
      "",
      "",
    ].join("\r\n"),
  );
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  await once(socket, "end");
  socket.destroy();
  return Buffer.concat(chunks).toString("utf8");
}
const secret = "sk-live-planted-4b1d9e";
const content = "PLANTED-USER-CONTENT-77aa";
const token = "metrics-token-0123456789abcdef";

/**
 * The server entry as the image runs it (config file, environment overrides, stdout logs,
 * SIGTERM), over a real socket.
 */
describe("server process", () => {
  let child: ChildProcess;
  let base = "";
  let stdout = "";
  let stderr = "";

  beforeAll(async () => {
    child = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
      cwd: root,
      env: {
        ...process.env,
        CONFIG_FILE: "configs/reversible.yaml",
        PORT: "0",
        HOST: "127.0.0.1",
        AUTH_TOKEN: token,
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stderr?.on("data", (chunk) => {
      stderr += String(chunk);
    });
    base = await new Promise<string>((done, fail) => {
      child.stdout?.on("data", (chunk) => {
        stdout += String(chunk);
        const port = /"msg":"listening".*"port":(\d+)/.exec(stdout)?.[1];
        if (port) done(`http://127.0.0.1:${port}`);
      });
      child.once("exit", (code) => fail(new Error(`server exited ${code}: ${stderr}`)));
    });
  });

  afterAll(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });

  const scrape = async () => {
    const response = await fetch(`${base}/metrics`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return response.text();
  };

  it("serves, counts, logs one clean line per request and drains on SIGTERM", async () => {
    const body = openaiBody([
      `${content}\n${logOutput(120, "a")}`,
      logOutput(120, "b"),
      logOutput(120, "c"),
      logOutput(120, "d"),
      "done",
    ]);
    const first = await scrape();
    const compact = await fetch(`${base}/compact`, {
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${secret}`,
        "x-api-key": secret,
        "x-context-guru-session": "process-suite",
        "x-context-guru-cache": "cold",
      },
    });
    const compacted = await compact.text();
    const refused = await fetch(`${base}/metrics`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    const second = await scrape();

    const before = Number(compact.headers.get("x-context-guru-tokens-before"));
    const after = Number(compact.headers.get("x-context-guru-tokens-after"));
    expect([compact.status, refused.status, after < before]).toEqual([200, 401, true]);
    expect(compacted).toContain("<<cg:");
    const compactRequests = { route: "/compact", method: "POST", status: "200" };
    expect(sample(first, "cg_http_requests_total", compactRequests)).toBeUndefined();
    expect(sample(second, "cg_http_requests_total", compactRequests)).toBe(1);
    expect(sample(second, "cg_request_tokens_before_total")).toBe(before);
    expect(sample(second, "cg_request_tokens_after_total")).toBe(after);
    expect(sample(second, "cg_markers_written_total", { component: "mask" })).toBeGreaterThan(0);
    expect(sample(second, "cg_store_entries", { backend: "memory" })).toBeGreaterThan(0);
    expect(sample(second, "process_resident_memory_bytes")).toBeGreaterThan(0);
    // The Responses WebSocket transport's handshake: 426, and the server ends the connection.
    expect(await handshake(base, "/v1/responses")).toMatch(/^HTTP\/1\.1 426 Upgrade Required\r\n/);

    child.kill("SIGTERM");
    const [code] = await once(child, "exit");
    expect(code).toBe(0);

    const lines = stdout
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = lines.filter((line) => line.msg === "request");
    expect(requests.map((line) => [line.method, line.route, line.status])).toEqual([
      ["GET", "/metrics", 200],
      ["POST", "/compact", 200],
      ["GET", "/metrics", 401],
      ["GET", "/metrics", 200],
      ["GET", "/v1/responses", 426],
    ]);
    expect(requests[1]).toMatchObject({ tokens_before: before, tokens_after: after });
    for (const line of requests) {
      expect(Object.keys(line).sort()).toEqual(
        expect.arrayContaining(["duration_ms", "method", "request_id", "route", "status"]),
      );
    }
    expect(lines.some((line) => line.msg === "draining")).toBe(true);
    expect(`${stdout}${stderr}`).not.toContain(secret);
    expect(`${stdout}${stderr}`).not.toContain(content);
    expect(`${stdout}${stderr}`).not.toContain(token);
  }, 60_000);
});
