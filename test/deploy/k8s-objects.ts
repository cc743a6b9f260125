import { resolve } from "node:path";
import type { IContainer } from "kubernetes-models/v1";
import { parse as parseYaml } from "yaml";
import { applyEnv, envSources } from "../../src/config/env.js";
import { loadConfig, parseConfig } from "../../src/config/load.js";
import type { Config } from "../../src/config/schema.js";
import { type Manifest, renderPlain } from "./kustomize-render.js";

export const root = resolve(import.meta.dirname, "../..");
export const k8s = resolve(root, "k8s");
export const COMPACTOR_IMAGE = "cg-compactor:0.1.0";

export type Pod = {
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean };
  containers: IContainer[];
  initContainers?: IContainer[];
  volumes?: Array<{ name: string; configMap?: { name: string } }>;
};

/** A kustomization under k8s/, rendered by the built-in renderer. */
export const render = (dir: string): Manifest[] => renderPlain(resolve(k8s, dir));

export const deployments = (objects: Manifest[]) =>
  objects.filter((object) => object.kind === "Deployment");
export const podOf = (deployment: Manifest) =>
  (deployment as unknown as { spec: { template: { spec: Pod } } }).spec.template.spec;
export const podLabels = (deployment: Manifest) =>
  (
    deployment as unknown as {
      spec: { template: { metadata: { labels?: Record<string, string> } } };
    }
  ).spec.template.metadata.labels ?? {};
export const containersOf = (pod: Pod) => [...(pod.initContainers ?? []), ...pod.containers];

/** The compactor container and its pod. */
export function compactorOf(objects: Manifest[]): {
  deployment: Manifest;
  pod: Pod;
  container: IContainer;
} {
  for (const deployment of deployments(objects)) {
    const pod = podOf(deployment);
    const container = containersOf(pod).find((item) => item.image === COMPACTOR_IMAGE);
    if (container) return { deployment, pod, container };
  }
  throw new Error("no compactor container");
}

/** The text of the ConfigMap key mounted at `file` in `container`. */
export function mountedFile(
  objects: Manifest[],
  pod: Pod,
  container: IContainer,
  file: string,
): string {
  const mount = container.volumeMounts?.find((item) => file.startsWith(`${item.mountPath}/`));
  const volume = pod.volumes?.find((item) => item.name === mount?.name);
  const configMap = objects.find(
    (object) => object.kind === "ConfigMap" && object.metadata.name === volume?.configMap?.name,
  );
  const key = file.slice((mount?.mountPath.length ?? 0) + 1);
  const text = (configMap?.data as Record<string, string> | undefined)?.[key];
  if (text === undefined) throw new Error(`${file} is not backed by a ConfigMap key`);
  return text;
}

/** Environment variables the container sets with a literal value. */
export function literalEnv(container: IContainer): Record<string, string> {
  return Object.fromEntries(
    (container.env ?? [])
      .filter((item) => item.value !== undefined)
      .map((item) => [item.name, item.value as string]),
  );
}

/**
 * The compactor's config as its process would load it: the mounted config.yaml with the
 * container's literal environment applied (variables from Secrets are left out; `extraEnv`
 * stands in for them or replaces addresses, as a test needs).
 */
export function compactorConfig(
  objects: Manifest[],
  extraEnv: Record<string, string> = {},
): { text: string; config: Config } {
  const { pod, container } = compactorOf(objects);
  const env = { ...literalEnv(container), ...extraEnv };
  const text = mountedFile(objects, pod, container, env.CONFIG_FILE ?? "");
  const raw = parseYaml(text) as Record<string, unknown>;
  return { text, config: parseConfig(applyEnv(raw, env), envSources(env)) };
}

/** A shipped configs/ file as the server loads it. */
export const shippedConfig = (name: string): Config =>
  loadConfig({ file: resolve(root, "configs", name) });

/** The heap bound in MiB from a container's NODE_OPTIONS (`--max-old-space-size=N`). */
export function heapMiB(container: IContainer): number | undefined {
  const match = /--max-old-space-size=(\d+)/.exec(literalEnv(container).NODE_OPTIONS ?? "");
  return match ? Number(match[1]) : undefined;
}
