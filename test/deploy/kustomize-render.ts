import { spawnSync } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { parseAllDocuments, parse as parseYaml } from "yaml";

export type Manifest = Record<string, unknown> & {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown> & { name: string };
};

type Node = Record<string, unknown>;

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function asManifest(value: unknown, source: string): Manifest {
  if (
    !isNode(value) ||
    typeof value.apiVersion !== "string" ||
    typeof value.kind !== "string" ||
    !isNode(value.metadata) ||
    typeof value.metadata.name !== "string"
  ) {
    throw new Error(`${source}: not a Kubernetes object`);
  }
  return value as Manifest;
}

function readDocuments(file: string): Manifest[] {
  return parseAllDocuments(readFileSync(file, "utf8"))
    .map((document) => document.toJS() as unknown)
    .filter((value) => value !== null)
    .map((value) => asManifest(value, file));
}

/** True when `kubectl` can run here. */
export function kubectlAvailable(): boolean {
  return spawnSync("kubectl", ["version", "--client"], { encoding: "utf8" }).status === 0;
}

/**
 * `kubectl kustomize DIR`, with the content hashes kustomize appends to generated ConfigMap
 * names taken off again (in names and in every reference), so it compares with `renderPlain`.
 */
export function renderWithKubectl(directory: string): Manifest[] {
  const result = spawnSync("kubectl", ["kustomize", directory], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${directory}: ${result.stderr}`);
  let text = result.stdout;
  const hashed = Array.from(text.matchAll(/^kind: ConfigMap\nmetadata:\n {2}name: (\S+)$/gm));
  for (const [, name = ""] of hashed) {
    text = text.replaceAll(name, name.replace(/-[a-z0-9]{10}$/, ""));
  }
  return parseAllDocuments(text).map((document) =>
    asManifest(document.toJS() as unknown, directory),
  );
}

const supported = new Set(["apiVersion", "kind", "resources", "configMapGenerator", "patches"]);

/**
 * A small kustomize for the features these manifests use — resources (files and directories),
 * configMapGenerator (create, replace, merge) and strategic-merge patches by kind and name —
 * so the manifests are checked even where kubectl is not installed. Anything else is an error.
 */
export function renderPlain(directory: string): Manifest[] {
  const kustomization: unknown = parseYaml(
    readFileSync(join(directory, "kustomization.yaml"), "utf8"),
  );
  if (!isNode(kustomization)) throw new Error(`${directory}: kustomization is not a mapping`);
  const unsupported = Object.keys(kustomization).filter((key) => !supported.has(key));
  if (unsupported.length > 0)
    throw new Error(`${directory}: unsupported ${unsupported.join(", ")}`);
  const objects: Manifest[] = [];
  for (const entry of list(kustomization.resources)) {
    const path = join(directory, String(entry));
    objects.push(...(statSync(path).isDirectory() ? renderPlain(path) : readDocuments(path)));
  }
  for (const generator of list(kustomization.configMapGenerator)) {
    if (!isNode(generator) || typeof generator.name !== "string") {
      throw new Error(`${directory}: configMapGenerator entry without a name`);
    }
    const data: Record<string, string> = {};
    for (const source of list(generator.files)) {
      const [key, file] = String(source).includes("=")
        ? (String(source).split("=", 2) as [string, string])
        : [basename(String(source)), String(source)];
      data[key] = readFileSync(join(directory, file), "utf8");
    }
    const behavior = generator.behavior ?? "create";
    const existing = objects.find(
      (object) => object.kind === "ConfigMap" && object.metadata.name === generator.name,
    );
    if (behavior === "create") {
      if (existing) throw new Error(`${directory}: ConfigMap ${generator.name} already exists`);
      objects.push({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: generator.name },
        data,
      });
    } else if (existing && (behavior === "replace" || behavior === "merge")) {
      existing.data = behavior === "replace" ? data : { ...(existing.data as Node), ...data };
    } else {
      throw new Error(`${directory}: cannot ${String(behavior)} ConfigMap ${generator.name}`);
    }
  }
  for (const patch of list(kustomization.patches)) {
    if (!isNode(patch) || typeof patch.path !== "string") {
      throw new Error(`${directory}: only file patches are supported`);
    }
    for (const change of readDocuments(join(directory, patch.path))) {
      const index = objects.findIndex(
        (object) => object.kind === change.kind && object.metadata.name === change.metadata.name,
      );
      const target = objects[index];
      if (!target) throw new Error(`${directory}: patch ${patch.path} matches nothing`);
      objects[index] = strategicMerge(target, change) as Manifest;
    }
  }
  return objects;
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Maps merge key by key; lists of named items merge item by name; other lists are replaced. */
function strategicMerge(target: unknown, patch: unknown): unknown {
  if (isNode(target) && isNode(patch)) {
    const merged: Node = { ...target };
    for (const [key, value] of Object.entries(patch))
      merged[key] = strategicMerge(target[key], value);
    return merged;
  }
  if (Array.isArray(target) && Array.isArray(patch) && patch.every(named)) {
    // As kustomize orders them: the patch's items (merged into their originals) first, then
    // the originals the patch did not mention.
    const merged = patch.map((change) => {
      const original = target.find((item) => named(item) && item.name === change.name);
      return original === undefined ? change : strategicMerge(original, change);
    });
    const untouched = target.filter(
      (item) => !patch.some((change) => named(item) && change.name === item.name),
    );
    return [...merged, ...untouched];
  }
  return patch;
}

function named(value: unknown): value is Node & { name: string } {
  return isNode(value) && typeof value.name === "string";
}
