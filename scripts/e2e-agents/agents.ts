import type { CliCommand } from "./cli-run.js";

/**
 * How each CLI is run through the service, non-interactively, with no network but loopback:
 * dummy keys, telemetry and non-essential traffic off, a home of its own per run. These are
 * the lines the README's "Claude Code" and "Codex CLI" sections give.
 */

export const SESSION_PROMPT =
  "Fix the failing test of this repository, then tell me what was wrong.";
export const FORK_PROMPT = "go";
/** Codex's model: the bundled catalog's model with classic tools (`apply_patch` freeform). */
export const CODEX_MODEL = "gpt-5.5";

const baseEnv = (home: string): Record<string, string> => ({
  PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
  HOME: home,
  LANG: "C.UTF-8",
  TERM: "dumb",
  NO_COLOR: "1",
});

export interface ClaudeOptions {
  readonly binary: string;
  readonly baseUrl: string;
  readonly home: string;
  readonly repo: string;
  readonly prompt: string;
  /** `--resume ID --fork-session`: continue that session under a new id. */
  readonly forkOf?: string;
  readonly env?: Readonly<Record<string, string>>;
}

export function claudeCommand(options: ClaudeOptions): CliCommand {
  const runningAsRoot = process.getuid?.() === 0;
  return {
    label: "claude",
    binary: options.binary,
    cwd: options.repo,
    args: [
      "-p",
      options.prompt,
      ...(options.forkOf === undefined ? [] : ["--resume", options.forkOf, "--fork-session"]),
      "--output-format",
      "json",
      "--permission-mode",
      "bypassPermissions",
    ],
    env: {
      ...baseEnv(options.home),
      ANTHROPIC_BASE_URL: options.baseUrl,
      ANTHROPIC_API_KEY: "sk-ant-e2e-dummy",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      // Claude Code refuses to bypass permissions as root outside a sandbox it is told of.
      ...(runningAsRoot ? { IS_SANDBOX: "1" } : {}),
      ...options.env,
    },
  };
}

export interface CodexOptions {
  readonly binary: string;
  readonly baseUrl: string;
  readonly home: string;
  readonly repo: string;
  readonly prompt: string;
  /** `custom`: a provider of its own with `wire_api = "responses"`; `builtin`: `openai_base_url`. */
  readonly provider: "custom" | "builtin";
  readonly config?: readonly string[];
}

const toml = (value: string) => JSON.stringify(value);

/** The `-c` overrides that point Codex at the service. */
export function codexProviderConfig(provider: "custom" | "builtin", baseUrl: string): string[] {
  if (provider === "builtin") return [`openai_base_url=${toml(`${baseUrl}/v1`)}`];
  return [
    `model_provider=${toml("cg")}`,
    `model_providers.cg.name=${toml("cg-compactor")}`,
    `model_providers.cg.base_url=${toml(`${baseUrl}/v1`)}`,
    `model_providers.cg.env_key=${toml("OPENAI_API_KEY")}`,
    `model_providers.cg.wire_api=${toml("responses")}`,
  ];
}

export function codexCommand(options: CodexOptions): CliCommand {
  const config = [
    ...codexProviderConfig(options.provider, options.baseUrl),
    ...(options.config ?? []),
  ];
  return {
    label: "codex",
    binary: options.binary,
    cwd: options.repo,
    args: [
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--dangerously-bypass-approvals-and-sandbox",
      "-m",
      CODEX_MODEL,
      ...config.flatMap((entry) => ["-c", entry]),
      options.prompt,
    ],
    env: {
      ...baseEnv(options.home),
      CODEX_HOME: `${options.home}/.codex`,
      OPENAI_API_KEY: "sk-e2e-dummy",
    },
  };
}

/** `codex login --with-api-key`: the built-in provider reads its key from the login, not the env. */
export function codexLoginCommand(
  options: Pick<CodexOptions, "binary" | "home" | "repo">,
): CliCommand {
  return {
    label: "codex-login",
    binary: options.binary,
    cwd: options.repo,
    args: ["login", "--with-api-key"],
    env: { ...baseEnv(options.home), CODEX_HOME: `${options.home}/.codex` },
    stdin: "sk-e2e-dummy",
  };
}
