import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Hono } from "hono";

const fileName = "openapi.yaml";

/**
 * Where the API description lives: beside the project root, found by walking up from this
 * module (src/routes in development, dist/src/routes when built), else the working directory.
 */
export function locateOpenapi(start = import.meta.dirname, cwd = process.cwd()): string {
  const tried: string[] = [];
  let directory = start;
  for (let depth = 0; depth < 4; depth += 1) {
    const candidate = join(directory, fileName);
    if (existsSync(candidate)) return candidate;
    tried.push(candidate);
    directory = dirname(directory);
  }
  const fromCwd = resolve(cwd, fileName);
  if (existsSync(fromCwd)) return fromCwd;
  throw new Error(`${fileName} not found (looked at ${[...tried, fromCwd].join(", ")})`);
}

/** GET /openapi.yaml: the API description, read once when the app is built. */
export function openapiRoute(file = locateOpenapi()): Hono {
  const text = readFileSync(file, "utf8");
  return new Hono().get(`/${fileName}`, (context) =>
    context.body(text, 200, { "content-type": "application/yaml; charset=utf-8" }),
  );
}
