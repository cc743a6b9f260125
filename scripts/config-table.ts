import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { applyEnv } from "../src/config/env.js";
import { configSchema } from "../src/config/schema.js";
import { descriptions } from "./config-descriptions.js";

/** One documented setting: a dotted key (`<name>` stands for every component). */
export interface ConfigRow {
  readonly key: string;
  readonly type: string;
  readonly default: string;
  readonly env: string;
  readonly description: string;
}

type Schema = {
  type?: string;
  enum?: unknown[];
  default?: unknown;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  format?: string;
};

/** Environment variables the loader reads (§9); each must land on exactly one key. */
export const environmentNames = [
  "PORT",
  "HOST",
  "STORE_ENABLED",
  "STORE_BACKEND",
  "REDIS_URL",
  "REDIS_MODE",
  "REDIS_NODES",
  "MARKER_MODE",
  "PRESET",
  "PIPELINE",
  "OPENAI_BASE_URL",
  "ANTHROPIC_BASE_URL",
  "LOG_LEVEL",
  "BODY_LIMIT",
  "AUTH_TOKEN",
  "STORE_HASH_KEY",
  "PROBE_PORT",
] as const;

/** Which key each environment variable overrides, found by asking the loader itself. */
export function environmentKeys(): Map<string, string> {
  const keys = new Map<string, string>();
  for (const name of environmentNames) {
    const leaves = leafPaths(applyEnv({}, { [name]: "1" }));
    if (leaves.length !== 1) throw new Error(`${name} overrides ${leaves.length} keys`);
    keys.set(leaves[0] as string, name);
  }
  return keys;
}

function leafPaths(value: unknown, prefix = ""): string[] {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [prefix];
  return Object.entries(value).flatMap(([key, child]) =>
    leafPaths(child, prefix ? `${prefix}.${key}` : key),
  );
}

const safeMax = Number.MAX_SAFE_INTEGER;

function typeOf(schema: Schema): string {
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(" \\| ");
  if (schema.type === "object" && schema.properties) {
    return `{${Object.keys(schema.properties).join(", ")}}`;
  }
  if (schema.type === "number" && schema.maximum !== undefined) {
    return `number ${schema.exclusiveMinimum !== undefined ? ">" : "≥"} ${schema.exclusiveMinimum ?? schema.minimum ?? 0}, ≤ ${schema.maximum}`;
  }
  if (schema.enum) return schema.enum.map((value) => `\`${String(value)}\``).join(" \\| ");
  if (schema.type === "array") return `list of ${typeOf(schema.items ?? {})}s`;
  if (schema.type === "integer") {
    const max =
      schema.maximum !== undefined && schema.maximum < safeMax ? schema.maximum : undefined;
    const min =
      schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : schema.minimum;
    if (max !== undefined) return `integer ${min ?? 0}–${max}`;
    return min === undefined ? "integer" : `integer ≥ ${min}`;
  }
  if (schema.type === "string" && schema.format === "uri") return "URL";
  if (schema.type === "string" && (schema.minLength ?? 0) > 1) {
    return `string, ≥ ${schema.minLength} chars`;
  }
  return schema.type ?? "any";
}

const mebibyte = 1024 * 1024;

function defaultOf(key: string, schema: Schema): string {
  if (schema.default === undefined) return "—";
  const text = `\`${JSON.stringify(schema.default)}\``;
  const value = schema.default;
  if (key.endsWith("_bytes") && typeof value === "number" && value % mebibyte === 0) {
    return `${text} (${value / mebibyte} MiB)`;
  }
  return text;
}

interface Leaf {
  readonly path: string;
  readonly schema: Schema;
}

function leaves(schema: Schema, prefix: string): Leaf[] {
  if (schema.type !== "object" || !schema.properties) return [{ path: prefix, schema }];
  return Object.entries(schema.properties).flatMap(([key, child]) =>
    leaves(child, prefix ? `${prefix}.${key}` : key),
  );
}

/**
 * Component options, each once: an option every component has is `components.<name>.KEY`; one
 * that several share with the same type and default is `components.{a,b}.KEY`.
 */
function componentLeaves(components: Schema): Leaf[] {
  const names = Object.keys(components.properties ?? {});
  const groups = new Map<string, { names: string[]; leaf: Leaf }>();
  for (const name of names) {
    for (const leaf of leaves(components.properties?.[name] ?? {}, "")) {
      const id = JSON.stringify([leaf.path, leaf.schema]);
      const group = groups.get(id) ?? { names: [], leaf };
      group.names.push(name);
      groups.set(id, group);
    }
  }
  const all = (group: { names: string[] }) => group.names.length === names.length;
  return [...groups.values()]
    .sort((a, b) => Number(all(b)) - Number(all(a)))
    .map((group) => {
      const owner = all(group)
        ? "<name>"
        : group.names.length > 1
          ? `{${group.names.join(",")}}`
          : (group.names[0] as string);
      return { path: `components.${owner}.${group.leaf.path}`, schema: group.leaf.schema };
    });
}

/** Every setting of the config schema, in schema order. */
export function configRows(): ConfigRow[] {
  const root = z.toJSONSchema(configSchema, { io: "input" }) as Schema;
  const env = environmentKeys();
  const rows: Leaf[] = Object.entries(root.properties ?? {}).flatMap(([key, schema]) =>
    key === "components" ? componentLeaves(schema) : leaves(schema, key),
  );
  return rows.map(({ path, schema }) => ({
    key: path,
    type: typeOf(schema),
    default: defaultOf(path, schema),
    env: env.has(path) ? `\`${env.get(path)}\`` : "",
    description: descriptions[path] ?? "",
  }));
}

export function configTable(rows = configRows()): string {
  const lines = rows.map(
    (row) => `| \`${row.key}\` | ${row.type} | ${row.default} | ${row.env} | ${row.description} |`,
  );
  return ["| key | type | default | env | description |", "|---|---|---|---|---|", ...lines].join(
    "\n",
  );
}

export const tableStart = "<!-- config-table:start -->";
export const tableEnd = "<!-- config-table:end -->";

/** The README with the text between the table markers replaced by `table`. */
export function withTable(readme: string, table: string): string {
  const start = readme.indexOf(tableStart);
  const end = readme.indexOf(tableEnd);
  if (start < 0 || end < start) throw new Error(`README lacks ${tableStart} … ${tableEnd}`);
  return `${readme.slice(0, start + tableStart.length)}\n${table}\n${readme.slice(end)}`;
}

/** `tsx scripts/config-table.ts` prints the table; `--write` puts it into README.md. */
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const table = configTable();
  if (process.argv.includes("--write")) {
    const readmePath = resolve(import.meta.dirname, "../README.md");
    writeFileSync(readmePath, withTable(readFileSync(readmePath, "utf8"), table));
  } else {
    process.stdout.write(`${table}\n`);
  }
}
