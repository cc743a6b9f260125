import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Deployment } from "kubernetes-models/apps/v1";
import type { IContainer } from "kubernetes-models/v1";
import { ConfigMap, Service, ServiceAccount } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { parseConfig } from "../../src/config/load.js";
import type { Config } from "../../src/config/schema.js";
import {
  kubectlAvailable,
  type Manifest,
  renderPlain,
  renderWithKubectl,
} from "./kustomize-render.js";

const root = resolve(import.meta.dirname, "../..");
const k8s = resolve(root, "k8s");
const withKubectl = kubectlAvailable();
if (!withKubectl) console.warn("kubectl not found: `kubectl kustomize` rendering is skipped");

const models: Record<string, (object: Manifest) => { validate(): void }> = {
  Deployment: (object) => new Deployment(object as never),
  Service: (object) => new Service(object as never),
  ConfigMap: (object) => new ConfigMap(object as never),
  ServiceAccount: (object) => new ServiceAccount(object as never),
};

/** Every kustomization, with the mode its compactor config must be in. */
const targets = [
  { dir: "base", store: "memory", markers: "full", copyOf: "default.yaml" },
  { dir: "overlays/clean", store: "off", markers: "off", copyOf: "llmd-clean.yaml" },
  { dir: "overlays/reversible", store: "memory", markers: "full", copyOf: "reversible.yaml" },
  {
    dir: "overlays/reversible-redis",
    store: "redis",
    markers: "full",
    copyOf: "reversible-redis.yaml",
  },
  { dir: "examples/sidecar", store: "off", markers: "off", copyOf: "llmd-clean.yaml" },
] as const;

type Pod = {
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean };
  containers: IContainer[];
  initContainers?: IContainer[];
  volumes?: Array<{ name: string; configMap?: { name: string } }>;
};

const deployments = (objects: Manifest[]) =>
  objects.filter((object) => object.kind === "Deployment");
const podOf = (deployment: Manifest) =>
  (deployment as unknown as { spec: { template: { spec: Pod } } }).spec.template.spec;
const containersOf = (pod: Pod) => [...(pod.initContainers ?? []), ...pod.containers];

function compactorOf(objects: Manifest[]): { pod: Pod; container: IContainer } {
  for (const deployment of deployments(objects)) {
    const pod = podOf(deployment);
    const container = containersOf(pod).find((item) => item.image === "cg-compactor:0.1.0");
    if (container) return { pod, container };
  }
  throw new Error("no compactor container");
}

function compactorConfig(objects: Manifest[]): { text: string; config: Config } {
  const { pod, container } = compactorOf(objects);
  const file = container.env?.find((item) => item.name === "CONFIG_FILE")?.value ?? "";
  const mount = container.volumeMounts?.find((item) => file.startsWith(`${item.mountPath}/`));
  const volume = pod.volumes?.find((item) => item.name === mount?.name);
  const configMap = objects.find(
    (object) => object.kind === "ConfigMap" && object.metadata.name === volume?.configMap?.name,
  );
  const key = file.slice((mount?.mountPath.length ?? 0) + 1);
  const text = (configMap?.data as Record<string, string> | undefined)?.[key];
  if (text === undefined) throw new Error(`CONFIG_FILE ${file} is not backed by a ConfigMap key`);
  return { text, config: parseConfig(parseYaml(text)) };
}

describe.each(targets)("k8s/$dir", ({ dir, store, markers, copyOf }) => {
  const objects = renderPlain(resolve(k8s, dir));

  it.skipIf(!withKubectl)("renders with kubectl kustomize, the same as the plain renderer", () => {
    const byKey = (items: Manifest[]) =>
      Object.fromEntries(items.map((item) => [`${item.kind}/${item.metadata.name}`, item]));
    expect(byKey(renderWithKubectl(resolve(k8s, dir)))).toEqual(byKey(objects));
  });

  it("validates every object against the Kubernetes schemas", () => {
    for (const object of objects) {
      const model = models[object.kind];
      expect(model, `${object.kind} has a schema check`).toBeDefined();
      expect(
        () => model?.(object).validate(),
        `${object.kind}/${object.metadata.name}`,
      ).not.toThrow();
    }
  });

  it(`runs the compactor with store ${store} and marker_mode ${markers}`, () => {
    const { config } = compactorConfig(objects);
    const { container } = compactorOf(objects);
    const redisUrl = container.env?.find((item) => item.name === "REDIS_URL")?.value;
    expect({
      store: config.store.enabled ? config.store.backend : "off",
      markers: config.marker_mode,
      redisUrl: redisUrl !== undefined,
    }).toEqual({ store, markers, redisUrl: store === "redis" });
  });

  it(`ships the same config as configs/${copyOf}`, () => {
    expect(compactorConfig(objects).text).toBe(
      readFileSync(resolve(root, "configs", copyOf), "utf8"),
    );
  });

  it("hardens every container and bounds its resources", () => {
    for (const deployment of deployments(objects)) {
      const pod = podOf(deployment);
      for (const container of containersOf(pod)) {
        const context = container.securityContext;
        expect({
          name: container.name,
          runAsNonRoot: context?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot,
          readOnlyRootFilesystem: context?.readOnlyRootFilesystem,
          allowPrivilegeEscalation: context?.allowPrivilegeEscalation,
          drop: context?.capabilities?.drop,
          requests: Object.keys(container.resources?.requests ?? {}).sort(),
          limits: Object.keys(container.resources?.limits ?? {}).sort(),
        }).toEqual({
          name: container.name,
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          drop: ["ALL"],
          requests: ["cpu", "memory"],
          limits: ["cpu", "memory"],
        });
      }
    }
  });

  it("probes the compactor on its own routes and drains inside the grace period", () => {
    const { pod, container } = compactorOf(objects);
    const { config } = compactorConfig(objects);
    const path = (probe: IContainer["livenessProbe"]) => probe?.httpGet?.path;
    expect([
      path(container.startupProbe),
      path(container.readinessProbe),
      path(container.livenessProbe),
    ]).toEqual(["/livez", "/readyz", "/livez"]);
    expect(container.ports?.map((port) => port.containerPort)).toEqual([4000]);
    const command = container.lifecycle?.preStop?.exec?.command ?? [];
    const preStopMs = command[0] === "sleep" ? Number(command[1]) * 1000 : 0;
    const graceMs = (pod.terminationGracePeriodSeconds ?? 30) * 1000;
    // Drain deadline plus any preStop pause, with at least 5 s to spare before SIGKILL.
    expect(graceMs - preStopMs - config.server.shutdown_timeout_ms).toBeGreaterThanOrEqual(5000);
  });
});

describe("overlays", () => {
  it("reach the Redis Service the reversible-redis overlay ships", () => {
    const objects = renderPlain(resolve(k8s, "overlays/reversible-redis"));
    const url = new URL(
      compactorOf(objects).container.env?.find((item) => item.name === "REDIS_URL")?.value ?? "",
    );
    const service = objects.find(
      (object) => object.kind === "Service" && object.metadata.name === url.hostname,
    );
    const ports = (service?.spec as { ports?: Array<{ port: number }> } | undefined)?.ports;
    expect(ports?.map((port) => port.port)).toContain(Number(url.port));
    expect(
      deployments(objects)
        .map((item) => item.metadata.name)
        .sort(),
    ).toEqual(["cg-compactor", "cg-compactor-redis"]);
  });

  it("toggle the store with one line: enabled true → false turns a reversible config clean", () => {
    const text = readFileSync(resolve(k8s, "overlays/reversible/config.yaml"), "utf8");
    const lines = text.split("\n");
    const index = lines.findIndex((line) => /^ {2}enabled: true\b/.test(line));
    lines[index] = lines[index]?.replace("true", "false") ?? "";
    const toggled = parseConfig(parseYaml(lines.join("\n")));
    expect([parseConfig(parseYaml(text)).store.enabled, toggled.store.enabled]).toEqual([
      true,
      false,
    ]);
  });
});

describe("k8s/examples/sidecar", () => {
  const objects = renderPlain(resolve(k8s, "examples/sidecar"));
  const router = deployments(objects).find((item) => item.metadata.name === "llm-d-router");
  const pod = router ? podOf(router) : undefined;

  it("runs the compactor as a native sidecar that starts before the router", () => {
    const sidecar = pod?.initContainers?.[0];
    expect({
      name: sidecar?.name,
      image: sidecar?.image,
      restartPolicy: sidecar?.restartPolicy,
      startup: sidecar?.startupProbe?.httpGet?.path,
      main: pod?.containers.map((item) => item.name),
    }).toEqual({
      name: "compactor",
      image: "cg-compactor:0.1.0",
      restartPolicy: "Always",
      startup: "/livez",
      main: ["router"],
    });
  });

  it("points the router's compaction step at the sidecar on localhost:4000", () => {
    const mounted = pod?.containers[0]?.volumeMounts?.map((item) => item.name) ?? [];
    const configMaps = pod?.volumes
      ?.filter((volume) => mounted.includes(volume.name))
      .map((volume) => objects.find((object) => object.metadata.name === volume.configMap?.name));
    const texts = (configMaps ?? []).flatMap((item) =>
      Object.values((item?.data ?? {}) as Record<string, string>),
    );
    const routerConfig: unknown = parseYaml(texts[0] ?? "");
    const step = (
      routerConfig as { plugins: Array<{ type: string; parameters?: { url?: string } }> }
    ).plugins.find((plugin) => plugin.type === "request-inline-compaction");
    expect(step?.parameters?.url).toBe("http://localhost:4000/compact");
  });
});
