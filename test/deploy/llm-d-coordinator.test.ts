import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { createApp } from "../../src/app.js";
import { createStore } from "../../src/store/create.js";
import {
  compactorConfig,
  compactorOf,
  deployments,
  mountedFile,
  podOf,
  render,
  root,
  shippedConfig,
} from "./k8s-objects.js";
import type { Manifest } from "./kustomize-render.js";

interface Step {
  readonly type: string;
  readonly params?: Record<string, unknown>;
}

/** The coordinator's config as its container mounts it. */
function coordinatorConfig(objects: Manifest[]): { pipeline: { steps: Step[] } } {
  const deployment = deployments(objects).find(
    (item) => item.metadata.name === "llm-d-coordinator",
  );
  if (!deployment) throw new Error("no coordinator");
  const pod = podOf(deployment);
  const container = pod.containers.find((item) => item.name === "coordinator");
  if (!container) throw new Error("no coordinator container");
  const args = container.args ?? [];
  const file = args[args.indexOf("--config") + 1] ?? "";
  return parseYaml(mountedFile(objects, pod, container, file));
}

/** A Go duration such as "10s" or "90s", in ms. */
const durationMs = (text: unknown) => {
  const match = /^(\d+)(ms|s)$/.exec(String(text));
  if (!match) throw new Error(`not a duration: ${String(text)}`);
  return Number(match[1]) * (match[2] === "s" ? 1000 : 1);
};

const examples = ["examples/llm-d-coordinator", "examples/sidecar"] as const;

describe.each(examples)("k8s/%s: the coordinator's request-inline-compaction step", (dir) => {
  const objects = render(dir);
  const steps = coordinatorConfig(objects).pipeline.steps;
  const step = steps[0];
  const address = new URL(String(step?.params?.address));

  it("comes first, with the published keys, before prefill and decode", () => {
    expect(steps.map((item) => item.type)).toEqual([
      "request-inline-compaction",
      "prefill",
      "decode",
    ]);
    expect({ ...step?.params, address: undefined }).toEqual({
      address: undefined,
      timeout: "10s",
      max_idle_conns_per_host: 100,
      idle_conn_timeout: "90s",
      min_size_threshold: 1000,
    });
  });

  it("is given the full URL of /compact and nothing more", () => {
    expect([address.pathname, address.search, address.hash]).toEqual(["/compact", "", ""]);
  });

  it("reaches the compactor's listener", () => {
    const { config } = compactorConfig(objects);
    if (dir === "examples/sidecar") {
      expect([address.hostname, Number(address.port)]).toEqual([
        config.server.host,
        config.server.port,
      ]);
      return;
    }
    const service = objects.find(
      (object) => object.kind === "Service" && object.metadata.name === address.hostname,
    );
    const port = (
      service?.spec as { ports?: Array<{ port: number; targetPort: string }> } | undefined
    )?.ports?.find((item) => item.port === Number(address.port));
    const { container } = compactorOf(objects);
    const target = container.ports?.find((item) => item.name === port?.targetPort);
    expect(target?.containerPort).toBe(config.server.port);
  });

  it("gets an answer at that path, and a 404 naming /compact one path further", async () => {
    const { config } = compactorConfig(objects);
    const app = createApp({ config, store: createStore(config.store) });
    const body = '{"model":"m","messages":[{"role":"user","content":"hi"}]}';
    const post = (path: string) => app.request(path, { method: "POST", body });
    const answered = await post(address.pathname);
    expect([answered.status, await answered.text()]).toEqual([200, body]);
    const doubled = await post(`${address.pathname}/compact`);
    expect(doubled.status).toBe(404);
    expect(((await doubled.json()) as { error: string }).error).toContain("POST /compact exactly");
  });

  it("waits longer than the compactor's own deadline, which answers with the original", () => {
    const { config } = compactorConfig(objects);
    expect(config.limits.compact_timeout_ms + 1000).toBeLessThanOrEqual(
      durationMs(step?.params?.timeout),
    );
  });
});

describe("shipped llm-d configs fit inside the coordinator's step timeout", () => {
  const timeoutMs = durationMs(
    coordinatorConfig(render("examples/llm-d-coordinator")).pipeline.steps[0]?.params?.timeout,
  );
  const llmd = readdirSync(`${root}/configs`).filter((file) => file.startsWith("llmd-"));

  it.each(llmd)("configs/%s answers a second or more before the coordinator gives up", (file) => {
    const config = shippedConfig(file);
    expect(config.limits.compact_timeout_ms + 1000).toBeLessThanOrEqual(timeoutMs);
    for (const name of ["summarize", "extract_llm"] as const) {
      if (!config.pipeline?.includes(name)) continue;
      const { model } = config.components[name];
      expect(model.timeout_ms).toBeLessThan(config.limits.compact_timeout_ms);
    }
  });

  it("the reversible proxy's upstream is the coordinator example's Service", () => {
    const objects = render("examples/llm-d-coordinator");
    const upstream = new URL(shippedConfig("reversible-proxy.yaml").upstream.openai.base_url);
    const service = objects.find(
      (object) => object.kind === "Service" && object.metadata.name === upstream.hostname,
    );
    const ports = (service?.spec as { ports?: Array<{ port: number }> } | undefined)?.ports;
    expect(ports?.map((port) => port.port)).toContain(Number(upstream.port));
    // The proxy appends /chat/completions: the coordinator serves /v1/chat/completions.
    expect(upstream.pathname).toBe("/v1");
  });
});
