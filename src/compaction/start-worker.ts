import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { type ResourceLimits, Worker } from "node:worker_threads";
import type { WorkerSetup } from "./job.js";

/** True when this module runs from its TypeScript source (tests, `npm run dev`), not from dist/. */
const fromSource = import.meta.url.endsWith(".ts");

/**
 * Starts one compaction worker thread. Built code starts `worker.js` beside this file. From the
 * TypeScript sources the worker first registers the same TypeScript loader the process runs
 * under (a worker does not inherit it, and Node 20 ignores `--import` in a worker's execArgv).
 * `resourceLimits` bound the worker's heap only when the process runs without
 * `--max-old-space-size`: that flag sets every thread's heap and takes precedence.
 */
export function startWorker(setup: WorkerSetup, resourceLimits: ResourceLimits = {}): Worker {
  const entry = new URL(fromSource ? "./worker.ts" : "./worker.js", import.meta.url);
  if (!fromSource) return new Worker(entry, { workerData: setup, resourceLimits });
  const loader = tsxApiUrl();
  const code = [
    `import(${JSON.stringify(loader)})`,
    ".then((tsx) => (tsx.register ?? tsx.default.register)())",
    `.then(() => import(${JSON.stringify(entry.href)}));`,
  ].join("");
  return new Worker(code, { eval: true, workerData: setup, resourceLimits });
}

/** The ESM entry of tsx's register API, read from the package's own exports map. */
function tsxApiUrl(): string {
  const manifest = createRequire(import.meta.url).resolve("tsx/package.json");
  const { exports } = JSON.parse(readFileSync(manifest, "utf8")) as {
    exports: { "./esm/api": { import: { default: string } } };
  };
  return pathToFileURL(join(dirname(manifest), exports["./esm/api"].import.default)).href;
}
