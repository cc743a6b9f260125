import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const root = resolve(import.meta.dirname, "..");

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((done) => probe.listen(0, "127.0.0.1", done));
  const address = probe.address();
  await new Promise<void>((done) => probe.close(() => done()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

export interface ServerChild {
  readonly port: number;
  readonly process: ChildProcess;
  /** Resolves with the first stdout line whose `msg` is the given one. */
  readonly logged: (msg: string) => Promise<void>;
  readonly exited: Promise<number | null>;
}

/**
 * The real server process on a free port with the given YAML config, started once it logs
 * `listening`: from the TypeScript sources (`node --import tsx src/server.ts`), or with `built`
 * the compiled entry the image runs (`node dist/src/server.js`, after `npm run build`). `env`
 * adds to (or overrides) its environment.
 */
export async function startServerChild(
  yaml: string,
  env: Record<string, string> = {},
  built = false,
): Promise<ServerChild> {
  const dir = mkdtempSync(join(tmpdir(), "cg-server-"));
  const file = join(dir, "config.yaml");
  writeFileSync(file, yaml);
  const port = await freePort();
  const entry = built ? ["dist/src/server.js"] : ["--import", "tsx", "src/server.ts"];
  const child = spawn(process.execPath, entry, {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      CONFIG_FILE: file,
      LOG_LEVEL: "warn",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const messages: string[] = [];
  const waiting = new Map<string, () => void>();
  createInterface({ input: child.stdout! }).on("line", (line) => {
    try {
      const { msg } = JSON.parse(line) as { msg?: string };
      if (msg === undefined) return;
      messages.push(msg);
      waiting.get(msg)?.();
    } catch {
      // not a log line
    }
  });
  child.stderr?.resume();
  const logged = (msg: string) =>
    messages.includes(msg)
      ? Promise.resolve()
      : new Promise<void>((done) => waiting.set(msg, done));
  const exited = once(child, "exit").then(([code]) => code as number | null);
  await Promise.race([
    logged("listening"),
    exited.then((code) => Promise.reject(new Error(`server exited ${code} before listening`))),
  ]);
  return { port, process: child, logged, exited };
}
