import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";

/**
 * One CLI process, non-interactive: its own environment only (nothing of the caller's leaks
 * in), stdin closed or given, stdout and stderr kept, and a deadline after which its whole
 * process group is killed.
 */

export interface CliCommand {
  readonly label: string;
  readonly binary: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly stdin?: string;
}

export interface CliResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly durationMs: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Process groups of the CLIs running now, so an interrupted harness can end them. */
const running = new Set<number>();

/** Kills every CLI still running (each with whatever it started). */
export function killRunningClis(): void {
  for (const pid of running) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // Gone already.
    }
  }
  running.clear();
}

export function runCli(
  command: CliCommand,
  options: { readonly timeoutMs: number; readonly logPrefix: string; readonly now: () => number },
): Promise<CliResult> {
  const startedAt = options.now();
  const child = spawn(command.binary, command.args, {
    cwd: command.cwd,
    env: command.env,
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  if (child.pid !== undefined) running.add(child.pid);
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
  child.stdin.end(command.stdin ?? "");
  let timedOut = false;
  const killGroup = () => {
    if (child.pid === undefined) return;
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group is gone already.
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, options.timeoutMs);
  return new Promise((resolve) => {
    child.once("close", (exitCode, signal) => {
      clearTimeout(timer);
      // Whatever the CLI left running (a shell it started) goes with it.
      killGroup();
      if (child.pid !== undefined) running.delete(child.pid);
      const result: CliResult = {
        exitCode,
        signal,
        timedOut,
        durationMs: options.now() - startedAt,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      };
      writeFileSync(`${options.logPrefix}.stdout`, result.stdout);
      writeFileSync(`${options.logPrefix}.stderr`, result.stderr);
      resolve(result);
    });
    child.once("error", (error) => {
      clearTimeout(timer);
      resolve({
        exitCode: null,
        signal: null,
        timedOut: false,
        durationMs: options.now() - startedAt,
        stdout: "",
        stderr: `could not start ${command.binary}: ${error.message}`,
      });
    });
  });
}
