import { describe, expect, it } from "vitest";
import { componentNamed, components } from "../../src/components/registry.js";
import { type ComponentName, componentNames } from "../../src/config/schema.js";

describe("component registry", () => {
  it("registers each component under its own name", () => {
    for (const [key, component] of Object.entries(components)) {
      expect(componentNames).toContain(key);
      expect(component.name).toBe(key);
    }
  });

  it.each<[ComponentName, "reformat" | "offload", "output" | "request"]>([
    ["format", "reformat", "output"],
    ["toon", "reformat", "output"],
    ["textclean", "reformat", "output"],
    ["searchfold", "reformat", "output"],
    ["mask", "offload", "request"],
    ["dedup", "offload", "request"],
    ["failed_run", "offload", "request"],
    ["collapse", "offload", "output"],
    ["smartcrush", "offload", "output"],
  ])("%s is a %s component of %s scope", (name, kind, scope) => {
    const component = componentNamed(name);
    expect(component?.kind).toBe(kind);
    expect(component?.scope).toBe(scope);
  });

  it("holds every deterministic component", () => {
    const deterministic: ComponentName[] = [
      "format",
      "toon",
      "textclean",
      "searchfold",
      "mask",
      "dedup",
      "failed_run",
      "collapse",
      "smartcrush",
      "extract",
      "linecap",
      "cmdfilter",
    ];
    for (const name of deterministic) expect(componentNamed(name)?.name).toBe(name);
  });
});
