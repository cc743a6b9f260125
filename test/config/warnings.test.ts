import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig, parseConfig } from "../../src/config/load.js";
import type { ConfigInput } from "../../src/config/schema.js";
import { configWarnings } from "../../src/config/warnings.js";

const ROOT = resolve(import.meta.dirname, "../..");

describe("start-up warnings for settings that contradict each other", () => {
  it.each<[string, ConfigInput, string[]]>([
    ["the default (reversible)", {}, []],
    ["clean mode", { store: { enabled: false }, marker_mode: "off" }, []],
    [
      "store on, marker_mode off",
      { marker_mode: "off" },
      [
        "store.enabled is true but marker_mode is off: nothing is ever stashed, so the store stays empty; set store.enabled: false for clean mode, or marker_mode: full to keep originals",
      ],
    ],
    [
      "store on, marker_mode summary",
      { marker_mode: "summary" },
      [
        "store.enabled is true but marker_mode is summary: nothing is ever stashed, so the store stays empty; set store.enabled: false for clean mode, or marker_mode: full to keep originals",
      ],
    ],
    [
      "store on, marker_mode off but one component full",
      { marker_mode: "off", components: { collapse: { marker_mode: "full" } } },
      [],
    ],
    [
      "store off, marker_mode full",
      { store: { enabled: false } },
      [
        "marker_mode is full but store.enabled is false: full markers degrade to off (nothing is stashed and no marker is written); set marker_mode: off, or enable the store",
      ],
    ],
    [
      "store off, two components full",
      {
        store: { enabled: false },
        marker_mode: "off",
        components: { mask: { marker_mode: "full" }, collapse: { marker_mode: "full" } },
      },
      [
        "components.{mask,collapse}.marker_mode is full but store.enabled is false: full markers degrade to off (nothing is stashed and no marker is written); set marker_mode: off, or enable the store",
      ],
    ],
    [
      "store off, inject_expand always",
      { store: { enabled: false }, marker_mode: "off", inject_expand: "always" },
      [
        "inject_expand is always but store.enabled is false: the expand tool is never injected without a store",
      ],
    ],
  ])("%s", (_, input, messages) => {
    expect(configWarnings(parseConfig(input)).map((warning) => warning.message)).toEqual(messages);
  });

  it.each(readdirSync(join(ROOT, "configs")))("configs/%s contradicts nothing", (file) => {
    expect(configWarnings(loadConfig({ file: join(ROOT, "configs", file) }))).toEqual([]);
  });
});
