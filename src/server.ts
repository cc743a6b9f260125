import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { createApp, defaultPool } from "./app.js";
import { parseCommandLine, usage } from "./cli/args.js";
import { loadConfig } from "./config/load.js";
import { configWarnings } from "./config/warnings.js";
import { ConfigError } from "./errors/config-error.js";
import { resolveHashKey } from "./hash-key/resolve.js";
import { ConnectionDrain } from "./lifecycle/drain.js";
import { httpServerOptions, keepRequestsAlreadySent } from "./lifecycle/http-server.js";
import { Lifecycle } from "./lifecycle/lifecycle.js";
import { createLogger } from "./observability/logger.js";
import { Metrics } from "./observability/metrics.js";
import { observedStore } from "./observability/observed-store.js";
import { createProbeApp } from "./probe-app.js";
import { createStore } from "./store/create.js";
import { storeDescription } from "./store/types.js";

/** The server entry: read config once, serve, drain on SIGTERM/SIGINT (§10). */
async function main(): Promise<void> {
  const command = parseCommandLine(process.argv.slice(2));
  if (command.kind === "help") {
    process.stdout.write(usage);
    process.exit(0);
  }
  if (command.kind === "error") {
    process.stderr.write(`cg-compactor: ${command.message}\n\n${usage}`);
    process.exit(2);
  }
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({ file: command.configFile ?? process.env.CONFIG_FILE, env: process.env });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`cg-compactor: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }

  const lifecycle = new Lifecycle();
  const logger = createLogger({ level: config.log.level });
  for (const warning of configWarnings(config))
    logger.warn({ keys: warning.keys }, warning.message);
  const hashKey = await resolveHashKey(config.store, {
    onWait: (error) =>
      logger.warn({ error: error.message }, "waiting for Redis to read the shared marker key"),
    onMismatch: () =>
      logger.error(
        "Redis holds another marker key than this replica uses: restart it, or set store.hash_key",
      ),
  }).catch((error: unknown) => {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`cg-compactor: ${error.message}\n`);
    process.exit(2);
  });
  const store = createStore(config.store, {
    onError: (error) => {
      metrics.storeError("connection");
      logger.warn({ error: error.message, store: config.store.backend }, "store error");
    },
  });
  const metrics = new Metrics({ store });
  // Worker threads loaded before the first request, so the first large body does not wait.
  const pool = defaultPool(config, observedStore(store, metrics), hashKey.key);
  void pool.warm();
  const app = createApp({
    config,
    store,
    lifecycle,
    metrics,
    logger,
    hashKey: hashKey.key,
    pool,
  });
  const server = serve(
    {
      fetch: app.fetch,
      port: config.server.port,
      hostname: config.server.host,
      serverOptions: httpServerOptions(config.limits),
    },
    (info) => {
      process.stdout.write(
        `${JSON.stringify({ level: "info", msg: "listening", address: info.address, port: info.port, ...storeDescription(store) })}\n`,
      );
    },
  );

  const listenFailed = (role: string) => (error: NodeJS.ErrnoException) => {
    process.stderr.write(`cg-compactor: cannot listen (${role}): ${error.code ?? error.message}\n`);
    process.exit(1);
  };
  server.on("error", listenFailed(`server.port ${config.server.port}`));
  const probes =
    config.server.probe_port === undefined
      ? undefined
      : serve(
          {
            fetch: createProbeApp({ config, store, lifecycle, metrics }).fetch,
            port: config.server.probe_port,
            hostname: "0.0.0.0",
          },
          (info) => {
            process.stdout.write(
              `${JSON.stringify({ level: "info", msg: "probes listening", address: info.address, port: info.port })}\n`,
            );
          },
        );
  probes?.on("error", listenFailed(`server.probe_port ${config.server.probe_port}`));
  const http = server as Server;
  keepRequestsAlreadySent(http);
  const connections = new ConnectionDrain(http);

  const shutdown = (signal: NodeJS.Signals) => {
    if (lifecycle.draining) return;
    lifecycle.beginDrain();
    const force = setTimeout(() => {
      process.stderr.write("cg-compactor: drain deadline passed, exiting\n");
      process.exit(1);
    }, config.server.shutdown_timeout_ms);
    force.unref();
    // Every response in flight is written to its end (or the deadline passes) before the exit.
    const drained = connections.drain();
    probes?.close();
    // Logged once the listener is closed: from this line on, a new connection is refused.
    process.stdout.write(`${JSON.stringify({ level: "info", msg: "draining", signal })}\n`);
    void drained
      .then(() => Promise.all([pool.close(), store.close(), hashKey.close()]))
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

void main();
