import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Absolute path of `redis-server` on PATH, or undefined when it is not installed. */
export function findRedisServer(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, "redis-server");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

/** A throwaway `redis-server` on a free loopback port, without persistence unless asked. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops the process (the port stays reserved for `start`). */
  stop(): Promise<void>;
  /** Starts it again on the same port (empty unless persistent) and waits until it answers PING. */
  start(): Promise<void>;
  /** Freezes the process (SIGSTOP): connections stay open but nothing answers. */
  pause(): void;
  /** Lets a paused process run again (SIGCONT). */
  resume(): void;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

export interface RedisServerOptions {
  /**
   * Keep every acknowledged write across `stop`/`start` (append-only file, fsync on every
   * write), as a Redis with persistence would; by default a restart comes back empty.
   */
  readonly persistent?: boolean;
  /** More `redis-server` arguments (e.g. cluster mode), after the defaults. */
  readonly args?: readonly string[];
}

export async function startRedisServer(
  binary = findRedisServer(),
  options: RedisServerOptions = {},
): Promise<RedisServer> {
  if (!binary) throw new Error("redis-server is not installed");
  const dir = mkdtempSync(join(tmpdir(), "cg-redis-"));
  const port = await freePort();
  let child: ChildProcess | undefined;

  const start = async () => {
    const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir];
    args.push("--save", "");
    if (options.persistent) args.push("--appendonly", "yes", "--appendfsync", "always");
    else args.push("--appendonly", "no");
    args.push(...(options.args ?? []));
    const spawned = spawn(binary, args, { stdio: "ignore" });
    child = spawned;
    const exited = new Promise<never>((_, reject) =>
      spawned.once("exit", (code) => reject(new Error(`redis-server exited with ${code}`))),
    );
    exited.catch(() => undefined);
    await Promise.race([waitForPong(port), exited]);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    pause: () => child?.kill("SIGSTOP"),
    resume: () => child?.kill("SIGCONT"),
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForPong(port: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (await answersPing(port)) return;
    await sleep(25);
  }
  throw new Error(`redis-server on port ${port} did not answer PING`);
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" });
    let reply = "";
    const finish = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => finish(false));
    socket.once("error", () => finish(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      reply += chunk.toString("latin1");
      if (reply.includes("\r\n")) finish(reply.startsWith("+PONG"));
    });
  });
}
