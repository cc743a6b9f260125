import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import type { z } from "zod";
import { ConfigError } from "../errors/config-error.js";
import { defaultSessionBytes } from "../store/session-quota.js";
import { checkCrossKeys } from "./cross-checks.js";
import { applyEnv, envSources } from "./env.js";
import { validatePipeline } from "./presets.js";
import { type Config, configSchema } from "./schema.js";

export interface LoadOptions {
  /** Path of a YAML config file; absent → the embedded defaults. */
  file?: string | undefined;
  env?: Readonly<Record<string, string | undefined>>;
}

/** Reads, overrides and validates the configuration once, at boot. Throws ConfigError. */
export function loadConfig({ file, env = {} }: LoadOptions = {}): Config {
  const fromFile = file ? readYaml(file) : {};
  return parseConfig(applyEnv(fromFile, env), envSources(env));
}

/**
 * Validates a raw config tree (file contents with overrides applied). Throws ConfigError, naming
 * the environment variable when the bad value came from one (`sources`: key → variable).
 */
export function parseConfig(
  raw: unknown,
  sources: ReadonlyMap<string, string> = new Map(),
): Config {
  try {
    const result = configSchema.safeParse(raw);
    if (!result.success) throw toConfigError(result.error);
    validatePipeline(result.data);
    checkCrossKeys(result.data);
    const { store, limits } = result.data;
    store.max_session_bytes ??= defaultSessionBytes(store, limits.body_bytes);
    return result.data;
  } catch (error) {
    throw error instanceof ConfigError ? namedBySource(error, sources) : error;
  }
}

/** `config server.port: …` → `config PORT: … (server.port)` when PORT set that key. */
function namedBySource(error: ConfigError, sources: ReadonlyMap<string, string>): ConfigError {
  for (const [key, name] of sources) {
    if (error.key === key || error.key.startsWith(`${key}.`)) {
      return new ConfigError(name, `${error.detail} (${error.key})`, { cause: error });
    }
  }
  return error;
}

function readYaml(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError("config_file", `cannot read ${file}`, { cause: error });
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new ConfigError("config_file", `${file} is not valid YAML: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (value === null || value === undefined) return {};
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError("config_file", `${file} must hold a mapping at the top level`);
  }
  return value as Record<string, unknown>;
}

function toConfigError(error: z.ZodError): ConfigError {
  const issue = error.issues[0];
  if (!issue) return new ConfigError("(root)", "invalid configuration");
  let path = issue.path.map(String);
  if (issue.code === "unrecognized_keys") {
    path = [...path, issue.keys[0] ?? "?"];
    return new ConfigError(path.join("."), "unknown key", { cause: error });
  }
  return new ConfigError(path.join(".") || "(root)", issue.message, { cause: error });
}
