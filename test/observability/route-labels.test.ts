import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { patternLabel } from "../../src/observability/route-label.js";
import { testApp } from "../support/app.js";

const readme = readFileSync(resolve(import.meta.dirname, "../../README.md"), "utf8");

/** The labels README's Operations section lists after "`route` is one of". */
function documentedLabels(text: string): string[] {
  const start = text.indexOf("`route` is one of");
  const end = text.indexOf("route serves", start);
  if (start < 0 || end < 0) throw new Error("README lacks the list of route labels");
  const list = text.slice(start + "`route` is one of".length, end);
  return Array.from(list.matchAll(/`([^`]+)`/g), (match) => match[1] as string);
}

describe("route labels", () => {
  it.each([
    ["/v1/models/:id{.+}", "/v1/models/:id"],
    ["/files/:name{[a-z]{2,}}/raw", "/files/:name/raw"],
    ["/v1/messages", "/v1/messages"],
  ])("labels the pattern %s as %s", (pattern, label) => {
    expect(patternLabel(pattern)).toBe(label);
  });

  it("are listed in the README, every one the app can give and no other", () => {
    const { app } = testApp();
    const labels = new Set(
      app.routes.filter((route) => route.method !== "ALL").map((route) => patternLabel(route.path)),
    );

    expect(documentedLabels(readme).sort()).toEqual([...labels, "unmatched"].sort());
  });
});
