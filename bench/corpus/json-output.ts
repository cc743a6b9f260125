import type { Project } from "./project.js";
import type { Random } from "./random.js";

const REGIONS = ["us-east-1", "eu-west-1", "ap-south-1", "eu-central-1"];
const STATUSES = ["healthy", "healthy", "healthy", "degraded", "error"];

/** A JSON API response: an array of uniform objects, pretty-printed as curl shows it. */
export function apiArray(project: Project, random: Random): string {
  const count = random.int(12, 90);
  const rows = Array.from({ length: count }, (_, index) => {
    const status = random.pick(STATUSES);
    return {
      id: index + 1,
      name: `${project.name}-${random.pick(project.words).replace(/_/g, "-")}-${index + 1}`,
      region: random.pick(REGIONS),
      status,
      replicas: random.int(1, 12),
      cpu: Number((random.int(5, 950) / 10).toFixed(1)),
      latency_ms: random.int(3, 900),
      message: status === "error" ? "readiness probe failed: connection refused" : null,
      updated_at: `2024-0${random.int(1, 9)}-1${random.int(0, 9)}T0${random.int(0, 9)}:${random.int(10, 59)}:00Z`,
    };
  });
  return JSON.stringify(rows, null, 2);
}

/** `kubectl get pods -o json`: uniform items inside an object envelope. */
export function podList(project: Project, random: Random): string {
  const items = Array.from({ length: random.int(6, 30) }, (_, index) => ({
    name: `${project.name}-${random.hex(10)}-${random.hex(5)}`,
    namespace: "default",
    phase: random.chance(0.85) ? "Running" : "CrashLoopBackOff",
    restarts: random.int(0, 14),
    node: `ip-10-0-${random.int(0, 9)}-${random.int(10, 250)}.ec2.internal`,
    started: `2024-05-${String(random.int(10, 28))}T1${random.int(0, 9)}:00:00Z`,
    index,
  }));
  return JSON.stringify(
    { apiVersion: "v1", kind: "List", items, metadata: { resourceVersion: "" } },
    null,
    2,
  );
}

/** `cat package.json` or `cat pyproject.toml`, as the project would hold it. */
export function manifest(project: Project): string {
  if (project.language === "python") {
    return [
      "[project]",
      `name = "${project.name}"`,
      'version = "2.3.1"',
      'requires-python = ">=3.10"',
      'dependencies = ["sqlparse>=0.4", "asgiref>=3.7"]',
      "",
      "[tool.pytest.ini_options]",
      'addopts = "-q"',
      'testpaths = ["tests"]',
    ].join("\n");
  }
  return JSON.stringify(
    {
      name: project.name,
      version: "1.4.0",
      type: "module",
      scripts: { build: "tsc -p .", test: "vitest run", lint: "biome check ." },
      dependencies: { hono: "^4.6.0", zod: "^3.23.8" },
      devDependencies: { typescript: "^5.6.2", vitest: "^1.6.0" },
    },
    null,
    2,
  );
}
