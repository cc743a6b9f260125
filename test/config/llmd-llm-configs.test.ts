import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { configuredPipeline } from "../../src/config/presets.js";

const ROOT = resolve(import.meta.dirname, "../..");
const load = (name: string) => loadConfig({ file: join(ROOT, "configs", name) });

describe("shipped LLM-backed llm-d configs", () => {
  it.each<[string, string[]]>([
    ["llmd-summarize.yaml", ["summarize"]],
    ["llmd-extract.yaml", ["format", "textclean", "extract_llm"]],
  ])("%s runs %j in clean mode", (name, pipeline) => {
    const config = load(name);
    expect(configuredPipeline(config)).toEqual(pipeline);
    expect(config.store.enabled).toBe(false);
    expect(config.marker_mode).toBe("off");
    expect(config.inject_expand).toBe("never");
  });

  it.each<[string, "summarize" | "extract_llm"]>([
    ["llmd-summarize.yaml", "summarize"],
    ["llmd-extract.yaml", "extract_llm"],
  ])("%s gives the model call room inside the /compact deadline", (name, component) => {
    const config = load(name);
    const { model } = config.components[component];
    expect(model.base_url).toBe("http://cheap-model:8000/v1");
    expect(model.timeout_ms).toBeLessThan(config.limits.compact_timeout_ms);
  });
});
