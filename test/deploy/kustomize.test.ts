import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Deployment } from "kubernetes-models/apps/v1";
import { NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import type { IContainer } from "kubernetes-models/v1";
import { ConfigMap, Service, ServiceAccount } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { loadConfig, parseConfig } from "../../src/config/load.js";
import {
  compactorConfig,
  compactorOf,
  containersOf,
  deployments,
  k8s,
  podOf,
  render,
  root,
} from "./k8s-objects.js";
import { kubectlAvailable, type Manifest, renderWithKubectl } from "./kustomize-render.js";

const withKubectl = kubectlAvailable();
if (!withKubectl) console.warn("kubectl not found: `kubectl kustomize` rendering is skipped");

const models: Record<string, (object: Manifest) => { validate(): void }> = {
  Deployment: (object) => new Deployment(object as never),
  Service: (object) => new Service(object as never),
  ConfigMap: (object) => new ConfigMap(object as never),
  ServiceAccount: (object) => new ServiceAccount(object as never),
  NetworkPolicy: (object) => new NetworkPolicy(object as never),
};

/** Every kustomization, with the mode its compactor config must be in. */
const targets = [
  { dir: "base", store: "memory", markers: "full", copyOf: "default.yaml", sidecar: false },
  {
    dir: "overlays/clean",
    store: "off",
    markers: "off",
    copyOf: "llmd-clean.yaml",
    sidecar: false,
  },
  {
    dir: "overlays/reversible",
    store: "memory",
    markers: "full",
    copyOf: "reversible.yaml",
    sidecar: false,
  },
  {
    dir: "overlays/reversible-redis",
    store: "redis",
    markers: "full",
    copyOf: "reversible-redis.yaml",
    sidecar: false,
  },
  {
    dir: "overlays/reversible-redis-cluster",
    store: "redis",
    markers: "full",
    copyOf: "reversible-redis-cluster.yaml",
    sidecar: false,
  },
  {
    dir: "overlays/reversible-proxy",
    store: "memory",
    markers: "full",
    copyOf: "reversible-proxy.yaml",
    sidecar: false,
  },
  {
    dir: "examples/llm-d-coordinator",
    store: "off",
    markers: "off",
    copyOf: "llmd-clean.yaml",
    sidecar: false,
  },
  {
    dir: "examples/sidecar",
    store: "off",
    markers: "off",
    copyOf: "llmd-clean.yaml",
    sidecar: true,
  },
] as const;

describe.each(targets)("k8s/$dir", ({ dir, store, markers, copyOf, sidecar }) => {
  const objects = render(dir);

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
    // Standalone Redis takes REDIS_URL, a cluster its seeds in REDIS_NODES.
    const redisVariable = config.store.redis.mode === "cluster" ? "REDIS_NODES" : "REDIS_URL";
    const redisUrl = container.env?.find((item) => item.name === redisVariable)?.value;
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

  it("probes the compactor on its probe port, saying alive, never fast", () => {
    const { container } = compactorOf(objects);
    const { config } = compactorConfig(objects);
    const probes = [container.startupProbe, container.readinessProbe, container.livenessProbe];
    const portNumber = (name: unknown) =>
      container.ports?.find((port) => port.name === name)?.containerPort;
    expect(probes.map((probe) => probe?.httpGet?.path)).toEqual(
      // A sidecar has no readiness probe: it would gate the coordinator's pod on the compactor.
      sidecar ? ["/livez", undefined, "/livez"] : ["/livez", "/readyz", "/livez"],
    );
    for (const probe of probes) {
      if (probe === undefined) continue;
      expect(portNumber(probe.httpGet?.port)).toBe(config.server.probe_port);
    }
    for (const probe of [container.readinessProbe, container.livenessProbe]) {
      if (probe === undefined) continue;
      // A slow answer is not a dead process: seconds to answer, several misses in a row.
      expect(probe.timeoutSeconds ?? 1).toBeGreaterThanOrEqual(5);
      expect(probe.failureThreshold ?? 3).toBeGreaterThanOrEqual(3);
    }
    expect(container.ports?.map((port) => port.containerPort)).toEqual([
      config.server.port,
      config.server.probe_port,
    ]);
    expect(config.server.host).toBe(sidecar ? "127.0.0.1" : "0.0.0.0");
  });

  it("drains inside the grace period", () => {
    const { pod, container } = compactorOf(objects);
    const { config } = compactorConfig(objects);
    const command = container.lifecycle?.preStop?.exec?.command ?? [];
    const preStopMs = command[0] === "sleep" ? Number(command[1]) * 1000 : 0;
    const graceMs = (pod.terminationGracePeriodSeconds ?? 30) * 1000;
    // A sidecar is stopped only after the main container has drained.
    const mainDrainMs = sidecar ? coordinatorShutdownMs(objects) : 0;
    // Drain deadline plus any preStop pause, with at least 5 s to spare before SIGKILL.
    expect(
      graceMs - mainDrainMs - preStopMs - config.server.shutdown_timeout_ms,
    ).toBeGreaterThanOrEqual(5000);
  });
});

/** The coordinator's `server.shutdown_timeout` from its mounted config, in ms. */
function coordinatorShutdownMs(objects: Manifest[]): number {
  const configMap = objects.find((object) => object.metadata.name === "llm-d-coordinator-config");
  const data = (configMap?.data ?? {}) as Record<string, string>;
  const text = data["coordinator.yaml"] ?? "";
  const seconds = /^(\d+)s$/.exec(
    (parseYaml(text) as { server: { shutdown_timeout: string } }).server.shutdown_timeout,
  )?.[1];
  return Number(seconds) * 1000;
}

describe("overlays", () => {
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

  it("reversible-redis runs the compactor and one Redis", () => {
    const images = (dir: string) =>
      deployments(render(dir)).flatMap((deployment) =>
        containersOf(podOf(deployment)).map((container: IContainer) => container.image),
      );
    expect(images("overlays/reversible-redis").sort()).toEqual([
      "cg-compactor:0.1.0",
      "redis:7.4-alpine",
    ]);
  });
});

describe("k8s/overlays/reversible-redis-cluster", () => {
  const objects = render("overlays/reversible-redis-cluster");

  it("runs the compactor alone, in cluster mode, its seeds from REDIS_NODES over TLS", () => {
    const { container } = compactorOf(objects);
    const env = new Map(container.env?.map((item) => [item.name, item.value]));
    const nodes = (env.get("REDIS_NODES") ?? "").replace("$(REDIS_PASSWORD)", "0123abcd");
    const config = loadConfig({
      file: resolve(k8s, "overlays/reversible-redis-cluster/config.yaml"),
      env: { REDIS_NODES: nodes },
    });
    expect({
      images: deployments(objects).flatMap((deployment) =>
        containersOf(podOf(deployment)).map((item: IContainer) => item.image),
      ),
      passwordFirst:
        [...env.keys()].indexOf("REDIS_PASSWORD") < [...env.keys()].indexOf("REDIS_NODES"),
      mode: config.store.redis.mode,
      nodes: config.store.redis.nodes,
    }).toEqual({
      images: ["cg-compactor:0.1.0"],
      passwordFirst: true,
      mode: "cluster",
      nodes: ["rediss://:0123abcd@clustercfg.cg-compactor.example.cache.amazonaws.com:6379"],
    });
  });
});

describe("k8s/examples/sidecar", () => {
  it("runs the compactor as a native sidecar that starts before the coordinator", () => {
    const objects = render("examples/sidecar");
    const coordinator = deployments(objects).find(
      (item) => item.metadata.name === "llm-d-coordinator",
    );
    const pod = coordinator ? podOf(coordinator) : undefined;
    const sidecar = pod?.initContainers?.[0];
    expect({
      name: sidecar?.name,
      image: sidecar?.image,
      restartPolicy: sidecar?.restartPolicy,
      startup: sidecar?.startupProbe?.httpGet?.path,
      readiness: sidecar?.readinessProbe,
      main: pod?.containers.map((item) => item.name),
    }).toEqual({
      name: "compactor",
      image: "cg-compactor:0.1.0",
      restartPolicy: "Always",
      startup: "/livez",
      readiness: undefined,
      main: ["coordinator"],
    });
  });
});
