import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";

/**
 * The service as the README starts it: `npm start` is `npm run build` and then
 * `node dist/src/server.js [CONFIG]`. The harness builds once and starts the built entry per
 * scenario, on a free loopback port, with the proxy routes pointed at the scripted model
 * (`ANTHROPIC_BASE_URL`, `OPENAI_BASE_URL`). Its log goes to a file; error lines are counted.
 */

export const PROJECT_ROOT = resolve(import.meta.dirname, "../..");

export function buildService(): void {
  execFileSync("npm", ["run", "build"], {
    cwd: PROJECT_ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
}

/** Service processes running now, so an interrupted harness can end them. */
const running = new Set<ChildProcess>();

export function killRunningServices(): void {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
}

export interface ServiceProcess {
  readonly port: number;
  /** Log lines at level error or above (pino's 50+, or "error"/"fatal"). */
  readonly errorLines: string[];
  /** Log lines at level warn. */
  readonly warnLines: string[];
  /** The service's own account of its work: the `GET /metrics` lines named by `prefixes`. */
  metrics(prefixes: readonly string[]): Promise<string[]>;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** A config file under configs/, or undefined for the embedded default. */
  readonly config: string | undefined;
  readonly modelUrl: string;
  readonly logFile: string;
}

function levelOf(line: string): string | number | undefined {
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed === "object" && parsed !== null && "level" in parsed) {
      const { level } = parsed as { level: unknown };
      return typeof level === "string" || typeof level === "number" ? level : undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}

export async function startService(options: ServiceOptions): Promise<ServiceProcess> {
  const args = ["dist/src/server.js", ...(options.config === undefined ? [] : [options.config])];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      PORT: "0",
      HOST: "127.0.0.1",
      ANTHROPIC_BASE_URL: options.modelUrl,
      OPENAI_BASE_URL: `${options.modelUrl}/v1`,
      LOG_LEVEL: "info",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  const log = createWriteStream(options.logFile);
  const errorLines: string[] = [];
  const warnLines: string[] = [];
  const port = new Promise<number>((resolvePort, reject) => {
    const classify = (line: string) => {
      log.write(`${line}\n`);
      const level = levelOf(line);
      if (level === "error" || level === "fatal" || (typeof level === "number" && level >= 50)) {
        errorLines.push(line);
      } else if (level === "warn" || level === 40) warnLines.push(line);
      try {
        const parsed = JSON.parse(line) as { msg?: unknown; port?: unknown };
        if (parsed.msg === "listening" && typeof parsed.port === "number") resolvePort(parsed.port);
      } catch {
        // Not a JSON line (a stack trace, npm's noise): kept in the log file only.
      }
    };
    createInterface({ input: child.stdout! }).on("line", classify);
    createInterface({ input: child.stderr! }).on("line", (line) => {
      log.write(`${line}\n`);
      errorLines.push(line);
    });
    child.once("exit", (code) =>
      reject(new Error(`the service exited (${code}) before listening`)),
    );
  });
  const exited = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
  const listening = await port;
  return {
    port: listening,
    errorLines,
    warnLines,
    async metrics(prefixes) {
      const response = await fetch(`http://127.0.0.1:${listening}/metrics`);
      const text = await response.text();
      // Series that counted nothing say nothing.
      return text
        .split("\n")
        .filter((line) => prefixes.some((prefix) => line.startsWith(`${prefix}{`)))
        .filter((line) => !line.endsWith(" 0"));
    },
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      log.end();
    },
  };
}
