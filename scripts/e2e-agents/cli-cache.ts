import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The two CLIs at pinned versions, installed on demand into a cache folder outside git (about
 * 650 MB; never devDependencies, never in CI): `npm install --prefix <cache>`. A folder that
 * already holds both at their versions is used as it is.
 */

export const CLAUDE_CODE = { name: "@anthropic-ai/claude-code", version: "2.1.197" } as const;
export const CODEX = { name: "@openai/codex", version: "0.171.0" } as const;

export interface InstalledClis {
  readonly claude: string;
  readonly codex: string;
}

function installedVersion(prefix: string, name: string): string | undefined {
  const manifest = join(prefix, "node_modules", name, "package.json");
  if (!existsSync(manifest)) return undefined;
  const parsed = JSON.parse(readFileSync(manifest, "utf8")) as { version?: unknown };
  return typeof parsed.version === "string" ? parsed.version : undefined;
}

/** The CLI's version line, or undefined when it does not run. */
function versionLine(binary: string, home: string): string | undefined {
  mkdirSync(home, { recursive: true });
  try {
    return execFileSync(binary, ["--version"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, CODEX_HOME: home },
    }).trim();
  } catch {
    return undefined;
  }
}

export function ensureClis(prefix: string, log: (line: string) => void): InstalledClis {
  const bin = (name: string) => join(prefix, "node_modules", ".bin", name);
  const home = join(prefix, "version-home");
  const missing = [CLAUDE_CODE, CODEX].some(
    (cli) => installedVersion(prefix, cli.name) !== cli.version,
  );
  if (missing) {
    mkdirSync(prefix, { recursive: true });
    // Both at once: the folder's package.json then pins exactly these two.
    const specs = [CLAUDE_CODE, CODEX].map((cli) => `${cli.name}@${cli.version}`);
    log(`installing ${specs.join(" ")} into ${prefix} (about 650 MB, from the npm registry)`);
    try {
      execFileSync(
        "npm",
        ["install", "--prefix", prefix, "--no-audit", "--no-fund", "--save-exact", ...specs],
        {
          stdio: ["ignore", "inherit", "inherit"],
        },
      );
    } catch (error) {
      throw new Error(
        `could not install ${specs.join(" ")} into ${prefix}: ${(error as Error).message}. The first run needs the npm registry.`,
      );
    }
  }
  const clis = { claude: bin("claude"), codex: bin("codex") };
  // Claude Code's postinstall puts the platform binary in place of its stub; run it if skipped.
  if (versionLine(clis.claude, home)?.includes(CLAUDE_CODE.version) !== true) {
    execFileSync(process.execPath, ["install.cjs"], {
      cwd: join(prefix, "node_modules", CLAUDE_CODE.name),
      stdio: ["ignore", "inherit", "inherit"],
    });
  }
  for (const [label, binary, version] of [
    ["claude", clis.claude, CLAUDE_CODE.version],
    ["codex", clis.codex, CODEX.version],
  ] as const) {
    const line = versionLine(binary, home);
    if (line?.includes(version) !== true) {
      throw new Error(
        `${label} at ${binary} does not run as version ${version} (it said: ${line ?? "nothing"})`,
      );
    }
  }
  return clis;
}
