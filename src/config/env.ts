import { ConfigError } from "../errors/config-error.js";

type Env = Readonly<Record<string, string | undefined>>;
type Raw = Record<string, unknown>;

/** Where each environment override lands in the config tree, and how its text is read. */
const overrides: ReadonlyArray<{ name: string; path: string[]; read: (text: string) => unknown }> =
  [
    { name: "PORT", path: ["server", "port"], read: integer },
    { name: "HOST", path: ["server", "host"], read: String },
    { name: "STORE_ENABLED", path: ["store", "enabled"], read: boolean },
    { name: "STORE_BACKEND", path: ["store", "backend"], read: String },
    { name: "REDIS_URL", path: ["store", "redis", "url"], read: String },
    { name: "REDIS_MODE", path: ["store", "redis", "mode"], read: String },
    { name: "REDIS_NODES", path: ["store", "redis", "nodes"], read: list },
    { name: "MARKER_MODE", path: ["marker_mode"], read: String },
    { name: "PRESET", path: ["preset"], read: String },
    { name: "PIPELINE", path: ["pipeline"], read: list },
    { name: "OPENAI_BASE_URL", path: ["upstream", "openai", "base_url"], read: String },
    { name: "ANTHROPIC_BASE_URL", path: ["upstream", "anthropic", "base_url"], read: String },
    { name: "LOG_LEVEL", path: ["log", "level"], read: String },
    { name: "BODY_LIMIT", path: ["limits", "body_bytes"], read: byteSize },
    { name: "AUTH_TOKEN", path: ["auth", "token"], read: String },
    { name: "STORE_HASH_KEY", path: ["store", "hash_key"], read: String },
    { name: "PROBE_PORT", path: ["server", "probe_port"], read: integer },
  ];

/** Returns a copy of `raw` with every set environment override written in. */
export function applyEnv(raw: Raw, env: Env): Raw {
  const result = structuredClone(raw);
  for (const { name, path, read } of overrides) {
    const text = env[name];
    if (text === undefined || text === "") continue;
    let value: unknown;
    try {
      value = read(text.trim());
    } catch (error) {
      throw new ConfigError(name, (error as Error).message, { cause: error });
    }
    setPath(result, path, value, name);
  }
  return result;
}

/**
 * The config keys the set environment variables override (`server.port` → `PORT`), so an error
 * in a value that came from the environment names the variable the operator set.
 */
export function envSources(env: Env): Map<string, string> {
  const sources = new Map<string, string>();
  for (const { name, path } of overrides) {
    const text = env[name];
    if (text !== undefined && text !== "") sources.set(path.join("."), name);
  }
  return sources;
}

function setPath(target: Raw, path: readonly string[], value: unknown, name: string): void {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key] ?? {};
    if (typeof next !== "object" || next === null || Array.isArray(next)) {
      throw new ConfigError(name, `cannot override ${path.join(".")}: ${key} is not a mapping`);
    }
    node[key] = next;
    node = next as Raw;
  }
  node[path[path.length - 1] as string] = value;
}

function integer(text: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`expected a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

function boolean(text: string): boolean {
  const lower = text.toLowerCase();
  if (["true", "1", "yes", "on"].includes(lower)) return true;
  if (["false", "0", "no", "off"].includes(lower)) return false;
  throw new Error(`expected true or false, got ${JSON.stringify(text)}`);
}

function list(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

const units: Record<string, number> = {
  "": 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** `33554432`, `32mib`, `32MiB`, `10mb`. */
export function byteSize(text: string): number {
  const match = /^(\d+)\s*([a-z]*)$/i.exec(text);
  const factor = match ? units[(match[2] ?? "").toLowerCase()] : undefined;
  if (!match || factor === undefined) {
    throw new Error(`expected a size such as 33554432 or 32MiB, got ${JSON.stringify(text)}`);
  }
  return Number(match[1]) * factor;
}
