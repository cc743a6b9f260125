import type { IContainer } from "kubernetes-models/v1";
import { describe, expect, it } from "vitest";
import {
  compactorConfig,
  compactorOf,
  containersOf,
  deployments,
  heapMiB,
  podLabels,
  podOf,
  render,
} from "./k8s-objects.js";
import type { Manifest } from "./kustomize-render.js";

type Policy = {
  spec: {
    podSelector: { matchLabels?: Record<string, string> };
    policyTypes?: string[];
    ingress?: Array<{
      from?: Array<{
        podSelector?: { matchLabels?: Record<string, string> };
        namespaceSelector?: object;
      }>;
      ports?: Array<{ port: string | number }>;
    }>;
  };
};

const policies = (objects: Manifest[]) =>
  objects.filter((object) => object.kind === "NetworkPolicy") as unknown as Array<
    Manifest & Policy
  >;

const selects = (policy: Policy, labels: Record<string, string>) =>
  Object.entries(policy.spec.podSelector.matchLabels ?? {}).every(
    ([key, value]) => labels[key] === value,
  );

/** What the NetworkPolicies selecting `labels` admit: port name → who ("any" or labels). */
function admitted(objects: Manifest[], labels: Record<string, string>): Record<string, unknown> {
  const rules: Record<string, unknown> = {};
  for (const policy of policies(objects).filter((item) => selects(item, labels))) {
    expect(policy.spec.policyTypes).toContain("Ingress");
    for (const rule of policy.spec.ingress ?? []) {
      for (const port of rule.ports ?? []) {
        rules[String(port.port)] =
          rule.from === undefined ? "any" : rule.from.map((peer) => peer.podSelector?.matchLabels);
      }
    }
  }
  return rules;
}

const secretRef = (container: IContainer, name: string) =>
  container.env?.find((item) => item.name === name)?.valueFrom?.secretKeyRef;

const REVERSIBLE = [
  "overlays/reversible",
  "overlays/reversible-redis",
  "overlays/reversible-proxy",
];

describe("who can reach the compactor", () => {
  it.each(["base", "overlays/clean", ...REVERSIBLE, "examples/llm-d-coordinator"])(
    "%s: the API port only from client pods, the probe port from anywhere",
    (dir) => {
      const objects = render(dir);
      const { deployment } = compactorOf(objects);
      expect(admitted(objects, podLabels(deployment))).toEqual({
        http: [{ "cg-compactor/client": "true" }],
        probes: "any",
      });
    },
  );

  it("the coordinator example's coordinator pod is a client", () => {
    const objects = render("examples/llm-d-coordinator");
    const coordinator = deployments(objects).find(
      (item) => item.metadata.name === "llm-d-coordinator",
    );
    expect(coordinator && podLabels(coordinator)["cg-compactor/client"]).toBe("true");
  });

  it("the sidecar listens on loopback; its pod admits only the coordinator's and the probe port", () => {
    const objects = render("examples/sidecar");
    const { deployment, container } = compactorOf(objects);
    expect(compactorConfig(objects).config.server.host).toBe("127.0.0.1");
    expect(admitted(objects, podLabels(deployment))).toEqual({ http: "any", probes: "any" });
    expect(container.ports?.map((port) => port.name)).toEqual(["compactor", "probes"]);
  });

  it("Redis answers the compactor's pods only", () => {
    const objects = render("overlays/reversible-redis");
    const redis = deployments(objects).find((item) => item.metadata.name === "cg-compactor-redis");
    expect(redis && admitted(objects, podLabels(redis))).toEqual({
      redis: [{ "app.kubernetes.io/name": "cg-compactor" }],
    });
  });
});

describe("secrets", () => {
  it.each(REVERSIBLE)("%s takes auth.token and store.hash_key from a Secret", (dir) => {
    const { container } = compactorOf(render(dir));
    expect([secretRef(container, "AUTH_TOKEN"), secretRef(container, "STORE_HASH_KEY")]).toEqual([
      { name: "cg-compactor-secrets", key: "auth-token" },
      { name: "cg-compactor-secrets", key: "store-hash-key" },
    ]);
    // With the Secret's values the config loads, and both settings are set.
    const { config } = compactorConfig(render(dir), {
      AUTH_TOKEN: "a".repeat(32),
      STORE_HASH_KEY: "b".repeat(32),
    });
    expect([config.auth.token, config.store.hash_key]).toEqual(["a".repeat(32), "b".repeat(32)]);
  });

  it("Redis requires the Secret's password, and REDIS_URL is built from the same Secret", () => {
    const objects = render("overlays/reversible-redis");
    const redis = deployments(objects).find((item) => item.metadata.name === "cg-compactor-redis");
    const server = redis ? podOf(redis).containers[0] : undefined;
    const password = { name: "cg-compactor-secrets", key: "redis-password" };
    expect(
      server && [secretRef(server, "REDIS_PASSWORD"), secretRef(server, "REDISCLI_AUTH")],
    ).toEqual([password, password]);
    const args = server?.args ?? [];
    expect(args[args.indexOf("--requirepass") + 1]).toBe("$(REDIS_PASSWORD)");

    const { container } = compactorOf(objects);
    const env = container.env ?? [];
    const url = env.find((item) => item.name === "REDIS_URL")?.value ?? "";
    expect(secretRef(container, "REDIS_PASSWORD")).toEqual(password);
    // Kubernetes expands $(NAME) only from variables defined before it.
    expect(env.findIndex((item) => item.name === "REDIS_PASSWORD")).toBeLessThan(
      env.findIndex((item) => item.name === "REDIS_URL"),
    );
    const parsed = new URL(url.replace("$(REDIS_PASSWORD)", "secret"));
    expect([parsed.password, parsed.hostname, parsed.port]).toEqual([
      "secret",
      "cg-compactor-redis",
      "6379",
    ]);
    const service = objects.find(
      (object) => object.kind === "Service" && object.metadata.name === parsed.hostname,
    );
    const ports = (service?.spec as { ports?: Array<{ port: number }> } | undefined)?.ports;
    expect(ports?.map((port) => port.port)).toContain(Number(parsed.port));
  });

  it.each([
    "base",
    "overlays/clean",
    ...REVERSIBLE,
    "examples/llm-d-coordinator",
    "examples/sidecar",
  ])("%s carries no credential as a literal value", (dir) => {
    for (const deployment of deployments(render(dir))) {
      for (const container of containersOf(podOf(deployment))) {
        const literal = (container.env ?? [])
          .filter((item) => /TOKEN|KEY|PASSWORD|AUTH/.test(item.name))
          .filter((item) => item.value !== undefined);
        expect(literal.map((item) => item.name)).toEqual([]);
      }
    }
  });
});

describe("store sizing", () => {
  it.each(["base", "overlays/reversible", "overlays/reversible-proxy"])(
    "%s: bytes bind, and the event loop's heap holds originals, memos and the bodies in flight",
    (dir) => {
      const objects = render(dir);
      const { config } = compactorConfig(objects);
      const heap = heapMiB(compactorOf(objects).container) ?? 0;
      const MiB = 1024 * 1024;
      // Each entry is counted with 256 bytes of overhead, so the entry count binds first only
      // for originals under max_bytes / max_entries - 256 bytes: about 1 KB at most here, where
      // the agent corpus's originals are 3 KB on average (k8s/README.md, "Store sizing").
      expect(config.store.max_bytes / config.store.max_entries - 256).toBeLessThan(1100);
      // The event loop's heap: ~60 MiB of code and state, the originals, the memos, and the
      // answers of admitted bodies (k8s/README.md, "Memory and CPU").
      const held = config.store.max_bytes + config.limits.memo_bytes + config.limits.inflight_bytes;
      expect(60 + held / MiB).toBeLessThanOrEqual(heap);
      expect(config.store.ttl_seconds).toBe(1800);
    },
  );

  it("Redis keeps what it holds under its container's memory limit", () => {
    const objects = render("overlays/reversible-redis");
    const redis = deployments(objects).find((item) => item.metadata.name === "cg-compactor-redis");
    const server = redis ? podOf(redis).containers[0] : undefined;
    const args = server?.args ?? [];
    const maxmemory = /^(\d+)mb$/.exec(args[args.indexOf("--maxmemory") + 1] ?? "")?.[1];
    const limit = /^(\d+)Mi$/.exec(String(server?.resources?.limits?.memory ?? ""))?.[1];
    expect(Number(maxmemory) * 1e6).toBeLessThanOrEqual(0.8 * Number(limit) * 1024 * 1024);
    expect(args[args.indexOf("--maxmemory-policy") + 1]).toBe("volatile-lru");
  });
});
