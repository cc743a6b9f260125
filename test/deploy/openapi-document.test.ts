import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { locateOpenapi, openapiRoute } from "../../src/routes/openapi.js";
import { openapiFile } from "./openapi-validator.js";

const root = resolve(import.meta.dirname, "../..");
const redocly = join(root, "node_modules/.bin/redocly");

describe("openapi.yaml", () => {
  it("lints clean with @redocly/cli (recommended rules)", async () => {
    const { stdout, stderr } = await promisify(execFile)(redocly, ["lint", "openapi.yaml"], {
      cwd: root,
      timeout: 60_000,
    });
    const output = `${stdout}\n${stderr}`;
    expect(output).toContain("Your API description is valid.");
    expect(output).not.toMatch(/You have \d+ warnings?|\d+ errors?/);
  }, 90_000);

  it("is served byte for byte at GET /openapi.yaml", async () => {
    const response = await openapiRoute().request("/openapi.yaml");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/yaml; charset=utf-8");
    expect(await response.text()).toBe(readFileSync(openapiFile, "utf8"));
  });
});

describe("locateOpenapi", () => {
  const scratch = mkdtempSync(join(tmpdir(), "cg-openapi-"));
  writeFileSync(join(scratch, "openapi.yaml"), "openapi: 3.1.0\n");

  it.each([
    ["from src/routes (development)", join(root, "src/routes"), tmpdir(), openapiFile],
    ["from dist/src/routes (built)", join(root, "dist/src/routes"), tmpdir(), openapiFile],
    ["from the working directory", tmpdir(), scratch, join(scratch, "openapi.yaml")],
  ])("finds the document %s", (_case, start, cwd, expected) => {
    expect(locateOpenapi(start, cwd)).toBe(expected);
  });

  it("names every place it looked when the document is missing", () => {
    expect(() => locateOpenapi("/nonexistent/a/b/c", "/nonexistent/cwd")).toThrow(
      "openapi.yaml not found (looked at /nonexistent/a/b/c/openapi.yaml, /nonexistent/a/b/openapi.yaml, /nonexistent/a/openapi.yaml, /nonexistent/openapi.yaml, /nonexistent/cwd/openapi.yaml)",
    );
  });
});
