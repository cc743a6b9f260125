/**
 * The scenarios of `npm run e2e:agents`: each CLI through the service in reversible mode (the
 * default, no router header) and in clean mode, Codex through its built-in provider too, a
 * resumed Claude Code fork, and each CLI with its own auto-compaction forced low.
 */

export type Mode = "reversible" | "clean";

export type RunSpec =
  | {
      readonly cli: "claude";
      readonly label: string;
      readonly env?: Readonly<Record<string, string>>;
      /** Resume this earlier run's session with `--fork-session`. */
      readonly forkOf?: string;
    }
  | {
      readonly cli: "codex";
      readonly label: string;
      readonly provider: "custom" | "builtin";
      readonly config?: readonly string[];
    };

export interface Scenario {
  readonly name: string;
  readonly title: string;
  readonly mode: Mode;
  /** The config file the service starts with; undefined: the embedded default (reversible). */
  readonly config: string | undefined;
  /** The agent's own compaction is forced low in these runs. */
  readonly ownCompaction: boolean;
  readonly runs: readonly RunSpec[];
}

const CLEAN_CONFIG = "configs/llmd-clean.yaml";
/** Claude Code compacts at 35 % of a 100,000-token window. */
export const CLAUDE_COMPACT_ENV = {
  CLAUDE_CODE_AUTO_COMPACT_WINDOW: "100000",
  CLAUDE_AUTOCOMPACT_PCT_OVERRIDE: "35",
};
/** Codex compacts past 13,000 tokens. */
export const CODEX_COMPACT_CONFIG = ["model_auto_compact_token_limit=13000"];

export const SCENARIOS: readonly Scenario[] = [
  {
    name: "claude",
    title: "Claude Code, reversible (default), then a resumed fork",
    mode: "reversible",
    config: undefined,
    ownCompaction: false,
    runs: [
      { cli: "claude", label: "claude" },
      { cli: "claude", label: "claude-fork", forkOf: "claude" },
    ],
  },
  {
    name: "codex",
    title: "Codex, custom provider (wire_api responses), reversible (default)",
    mode: "reversible",
    config: undefined,
    ownCompaction: false,
    runs: [{ cli: "codex", label: "codex", provider: "custom" }],
  },
  {
    name: "codex-builtin",
    title: "Codex, built-in provider (openai_base_url), reversible (default)",
    mode: "reversible",
    config: undefined,
    ownCompaction: false,
    runs: [{ cli: "codex", label: "codex-builtin", provider: "builtin" }],
  },
  {
    name: "claude-clean",
    title: "Claude Code, clean mode",
    mode: "clean",
    config: CLEAN_CONFIG,
    ownCompaction: false,
    runs: [{ cli: "claude", label: "claude-clean" }],
  },
  {
    name: "codex-clean",
    title: "Codex, custom provider, clean mode",
    mode: "clean",
    config: CLEAN_CONFIG,
    ownCompaction: false,
    runs: [{ cli: "codex", label: "codex-clean", provider: "custom" }],
  },
  {
    name: "claude-compact",
    title: "Claude Code, reversible, its own auto-compaction forced low",
    mode: "reversible",
    config: undefined,
    ownCompaction: true,
    runs: [{ cli: "claude", label: "claude-compact", env: CLAUDE_COMPACT_ENV }],
  },
  {
    name: "codex-compact",
    title: "Codex, custom provider, reversible, its own auto-compaction forced low",
    mode: "reversible",
    config: undefined,
    ownCompaction: true,
    runs: [
      { cli: "codex", label: "codex-compact", provider: "custom", config: CODEX_COMPACT_CONFIG },
    ],
  },
  {
    name: "codex-builtin-compact",
    title: "Codex, built-in provider, reversible, its own (remote) compaction forced low",
    mode: "reversible",
    config: undefined,
    ownCompaction: true,
    runs: [
      {
        cli: "codex",
        label: "codex-builtin-compact",
        provider: "builtin",
        config: CODEX_COMPACT_CONFIG,
      },
    ],
  },
];
