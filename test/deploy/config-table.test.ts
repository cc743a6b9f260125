import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { descriptions } from "../../scripts/config-descriptions.js";
import {
  configRows,
  configTable,
  environmentKeys,
  environmentNames,
  tableEnd,
  tableStart,
  withTable,
} from "../../scripts/config-table.js";

const readme = readFileSync(resolve(import.meta.dirname, "../../README.md"), "utf8");

describe("README configuration table", () => {
  it("matches the table generated from the config schema (regenerate: npx tsx scripts/config-table.ts --write)", () => {
    const start = readme.indexOf(tableStart) + tableStart.length;
    const end = readme.indexOf(tableEnd);
    expect(readme.slice(start, end).trim()).toBe(configTable());
  });

  it("describes every setting, and only settings that exist", () => {
    const keys = configRows().map((row) => row.key);
    expect(keys.filter((key) => !descriptions[key])).toEqual([]);
    expect(Object.keys(descriptions).filter((key) => !keys.includes(key))).toEqual([]);
  });

  it("names the environment variable of every overridable key", () => {
    const env = environmentKeys();
    const documented = configRows()
      .filter((row) => row.env !== "")
      .map((row) => [row.key, row.env]);
    expect(env.size).toBe(environmentNames.length);
    expect(Object.fromEntries(documented)).toEqual(
      Object.fromEntries([...env].map(([key, name]) => [key, `\`${name}\``])),
    );
  });

  it.each([
    ["store.enabled", "boolean", "`true`", "`STORE_ENABLED`"],
    ["limits.body_bytes", "integer ≥ 1", "`33554432` (32 MiB)", "`BODY_LIMIT`"],
    ["marker_mode", "`full` \\| `summary` \\| `off`", '`"full"`', "`MARKER_MODE`"],
    ["server.port", "integer 0–65535", "`4000`", "`PORT`"],
    ["components.<name>.trigger.min_messages", "integer ≥ 0", "`0`", ""],
    ["components.mask.keep_recent", "integer ≥ 0", "`1`", ""],
    ["components.mask.working_set_tokens", "integer ≥ 0", "`3000`", ""],
    ["store.hash_key", "string, ≥ 16 chars", "—", "`STORE_HASH_KEY`"],
  ])("%s is %s, default %s, env %s", (key, type, fallback, env) => {
    const row = configRows().find((item) => item.key === key);
    expect(row && [row.type, row.default, row.env]).toEqual([type, fallback, env]);
  });

  it("replaces only the text between the markers", () => {
    const text = `# x\n${tableStart}\nold\n${tableEnd}\nrest\n`;
    expect(withTable(text, "new")).toBe(`# x\n${tableStart}\nnew\n${tableEnd}\nrest\n`);
    expect(() => withTable("# no markers\n", "new")).toThrow("README lacks");
  });
});
