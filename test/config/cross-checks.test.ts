import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/load.js";
import type { ConfigInput } from "../../src/config/schema.js";

const ROOT = resolve(import.meta.dirname, "../..");
const TOKEN = "proxy-token-0123456789abcdef";

/** The message of the ConfigError `input` raises, or undefined when it is valid. */
function refusal(input: ConfigInput): string | undefined {
  try {
    parseConfig(input);
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

const reason = "the proxy routes would spend the gateway key for any caller";

describe("store.max_session_bytes", () => {
  it.each<[ConfigInput, string | undefined]>([
    [
      { store: { max_bytes: 1000, max_session_bytes: 1001 } },
      "config store.max_session_bytes: 1001 is more than store.max_bytes (1000): one session cannot hold more than the store",
    ],
    [{ store: { max_bytes: 1000, max_session_bytes: 1000 } }, undefined],
    [{ store: { max_session_bytes: 1024 } }, undefined],
  ])("%j", (input, message) => {
    expect(refusal(input)).toBe(message);
  });
});

describe("a gateway key requires auth.token", () => {
  it.each<[string, ConfigInput, string | undefined]>([
    [
      "an OpenAI gateway key alone",
      { upstream: { openai: { api_key: "sk-gateway" } } },
      `config auth.token: required when upstream.openai.api_key is set: without it ${reason}`,
    ],
    [
      "an Anthropic gateway key alone",
      { upstream: { anthropic: { api_key: "sk-ant-gateway" } } },
      `config auth.token: required when upstream.anthropic.api_key is set: without it ${reason}`,
    ],
    [
      "both gateway keys",
      { upstream: { openai: { api_key: "a" }, anthropic: { api_key: "b" } } },
      `config auth.token: required when upstream.openai.api_key and upstream.anthropic.api_key are set: without it ${reason}`,
    ],
    [
      "a gateway key with a token",
      { upstream: { openai: { api_key: "a" } }, auth: { token: TOKEN } },
      undefined,
    ],
    ["no gateway key and no token", {}, undefined],
  ])("%s", (_name, input, message) => {
    expect(refusal(input)).toBe(message);
  });

  it("stops the server at start-up, naming both keys", () => {
    const file = join(mkdtempSync(join(tmpdir(), "cg-config-")), "config.yaml");
    writeFileSync(file, "upstream:\n  anthropic:\n    api_key: sk-ant-gateway-planted\n");
    const result = spawnSync(
      process.execPath,
      ["--import", "tsx", "src/server.ts", "--config", file],
      {
        cwd: ROOT,
        encoding: "utf8",
        timeout: 20_000,
        env: { ...process.env, PORT: "0", HOST: "127.0.0.1" },
      },
    );
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(
      "config auth.token: required when upstream.anthropic.api_key is set",
    );
    expect(result.stdout).not.toContain('"msg":"listening"');
    expect(`${result.stdout}${result.stderr}`).not.toContain("sk-ant-gateway-planted");
  });
});
