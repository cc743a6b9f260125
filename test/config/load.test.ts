import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, parseConfig } from "../../src/config/load.js";
import { configuredPipeline, presets } from "../../src/config/presets.js";
import { ConfigError } from "../../src/errors/config-error.js";

const ROOT = resolve(import.meta.dirname, "../..");

function keyOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.key;
    throw error;
  }
  return undefined;
}

function yamlFile(text: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "cg-config-")), "config.yaml");
  writeFileSync(file, text);
  return file;
}

describe("configuration", () => {
  it("embedded defaults: reversible mode with the agent preset", () => {
    const config = loadConfig();
    expect(config.marker_mode).toBe("full");
    expect(config.store).toMatchObject({
      enabled: true,
      backend: "memory",
      ttl_seconds: 1800,
      max_entries: 200_000,
      max_sessions: 100,
      max_bytes: 268435456,
    });
    expect(config.server).toMatchObject({ port: 4000, host: "0.0.0.0" });
    expect(config.limits.body_bytes).toBe(32 * 1024 * 1024);
    expect(configuredPipeline(config)).toEqual(presets.agent);
    expect(config.components.mask).toMatchObject({
      keep_recent: 1,
      min_tokens: 100,
      working_set_tokens: 3000,
    });
    expect(config.components.mask_calls).toMatchObject({ keep_recent: 2, min_tokens: 50 });
  });

  it.each([
    ["an unknown top-level key", { colour: "red" }, "colour"],
    ["an unknown nested key", { store: { ttl: 5 } }, "store.ttl"],
    ["an unknown component option", { components: { mask: { keep: 1 } } }, "components.mask.keep"],
    ["a bad value", { store: { ttl_seconds: -1 } }, "store.ttl_seconds"],
    ["a bad enum", { marker_mode: "partial" }, "marker_mode"],
    ["an unknown preset", { preset: "turbo" }, "preset"],
    ["an unknown pipeline component", { pipeline: ["format", "shrink"] }, "pipeline"],
    [
      "a bad upstream url",
      { upstream: { openai: { base_url: "not a url" } } },
      "upstream.openai.base_url",
    ],
  ])("%s stops start-up naming the key", (_, raw, key) => {
    expect(keyOf(() => parseConfig(raw))).toBe(key);
  });

  it("environment overrides win over the file", () => {
    const file = yamlFile("preset: safe\nstore:\n  enabled: true\nserver:\n  port: 5000\n");
    const config = loadConfig({
      file,
      env: {
        PORT: "4100",
        HOST: "127.0.0.1",
        STORE_ENABLED: "false",
        MARKER_MODE: "off",
        PRESET: "balanced",
        PIPELINE: "format, dedup",
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
        ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
        LOG_LEVEL: "warn",
        BODY_LIMIT: "10MiB",
        REDIS_URL: "redis://10.0.0.1:6379",
        STORE_BACKEND: "redis",
      },
    });
    expect(config.server).toMatchObject({ port: 4100, host: "127.0.0.1" });
    expect(config.store).toMatchObject({
      enabled: false,
      backend: "redis",
      redis: { url: "redis://10.0.0.1:6379", key_prefix: "cg:" },
    });
    expect(config.marker_mode).toBe("off");
    expect(config.preset).toBe("balanced");
    expect(config.pipeline).toEqual(["format", "dedup"]);
    expect(configuredPipeline(config)).toEqual(["format", "dedup"]);
    expect(config.upstream.openai.base_url).toBe("http://127.0.0.1:9/v1");
    expect(config.log.level).toBe("warn");
    expect(config.limits.body_bytes).toBe(10 * 1024 * 1024);
  });

  it.each([
    ["PORT", "eighty"],
    ["STORE_ENABLED", "maybe"],
    ["BODY_LIMIT", "lots"],
  ])("a malformed %s names the variable", (name, value) => {
    expect(keyOf(() => loadConfig({ env: { [name]: value } }))).toBe(name);
  });

  it.each([
    ["PORT", "99999", "server.port"],
    ["PROBE_PORT", "70000", "server.probe_port"],
    ["MARKER_MODE", "partial", "marker_mode"],
    ["STORE_BACKEND", "etcd", "store.backend"],
    ["PRESET", "turbo", "preset"],
    ["PIPELINE", "format, shrink", "pipeline"],
    ["OPENAI_BASE_URL", "not a url", "upstream.openai.base_url"],
    ["LOG_LEVEL", "loud", "log.level"],
    ["AUTH_TOKEN", "short", "auth.token"],
    ["STORE_HASH_KEY", "short", "store.hash_key"],
  ])("a %s the schema refuses names the variable and the key it sets", (name, value, key) => {
    let error: unknown;
    try {
      loadConfig({ env: { [name]: value } });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { key: named, message } = error as ConfigError;
    expect(named).toBe(name);
    expect(message).toMatch(new RegExp(`^config ${name}: .+ \\(${key.replaceAll(".", "\\.")}\\)$`));
  });

  it("a bad value in the file still names its key while other variables are set", () => {
    const file = yamlFile("server:\n  port: 99999\n");
    expect(keyOf(() => loadConfig({ file, env: { HOST: "127.0.0.1", PROBE_PORT: "4001" } }))).toBe(
      "server.port",
    );
  });

  it("STORE_HASH_KEY and PROBE_PORT set their keys", () => {
    const config = loadConfig({
      env: { STORE_HASH_KEY: "0123456789abcdef0123", PROBE_PORT: "4001" },
    });
    expect([config.store.hash_key, config.server.probe_port]).toEqual([
      "0123456789abcdef0123",
      4001,
    ]);
  });

  it("a file that is not YAML or not a mapping names config_file", () => {
    expect(keyOf(() => loadConfig({ file: yamlFile("a: [unclosed") }))).toBe("config_file");
    expect(keyOf(() => loadConfig({ file: yamlFile("- a\n- b\n") }))).toBe("config_file");
    expect(keyOf(() => loadConfig({ file: "/nonexistent/config.yaml" }))).toBe("config_file");
  });

  it.each(["configs/default.yaml", "configs/llmd-clean.yaml"])("%s is valid", (path) => {
    expect(() => loadConfig({ file: join(ROOT, path) })).not.toThrow();
  });

  it("configs/llmd-clean.yaml disables the store and markers", () => {
    const config = loadConfig({ file: join(ROOT, "configs/llmd-clean.yaml") });
    expect(config.store.enabled).toBe(false);
    expect(config.marker_mode).toBe("off");
  });

  it("the server exits non-zero naming the key of a bad config", () => {
    const file = yamlFile("store:\n  max_bytes: lots\n");
    const result = spawnSync(
      process.execPath,
      ["--import", "tsx", "src/server.ts", "--config", file],
      {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 20_000,
      },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("config store.max_bytes:");
  });
});
