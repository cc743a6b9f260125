import type { Server } from "node:http";
import { parseArgs } from "node:util";
import { serve } from "@hono/node-server";
import { createApp, defaultPool } from "./app.js";
import { loadConfig } from "./config/load.js";
import { ConfigError } from "./errors/config-error.js";
import { ConnectionDrain } from "./lifecycle/drain.js";
import { httpServerOptions, keepRequestsAlreadySent } from "./lifecycle/http-server.js";
import { Lifecycle } from "./lifecycle/lifecycle.js";
import { createLogger } from "./observability/logger.js";
import { Metrics } from "./observability/metrics.js";
import { observedStore } from "./observability/observed-store.js";
import { createStore } from "./store/create.js";

/** The server entry: read config once, serve, drain on SIGTERM/SIGINT (§10). */
function main(): void {
  const { values } = parseArgs({
    options: { config: { type: "string" } },
    allowPositionals: false,
  });
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({ file: values.config ?? process.env.CONFIG_FILE, env: process.env });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`cg-compactor: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }

  const lifecycle = new Lifecycle();
  const logger = createLogger({ level: config.log.level });
  const store = createStore(config.store, {
    onError: (error) => {
      metrics.storeError("connection");
      logger.warn({ error: error.message, store: config.store.backend }, "store error");
    },
  });
  const metrics = new Metrics({ store });
  // Worker threads loaded before the first request, so the first large body does not wait.
  const pool = defaultPool(config, observedStore(store, metrics));
  void pool.warm();
  const app = createApp({ config, store, lifecycle, metrics, logger, pool });
  const server = serve(
    {
      fetch: app.fetch,
      port: config.server.port,
      hostname: config.server.host,
      serverOptions: httpServerOptions(config.limits),
    },
    (info) => {
      process.stdout.write(
        `${JSON.stringify({ level: "info", msg: "listening", address: info.address, port: info.port, store: store.backend })}\n`,
      );
    },
  );

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
    // Logged once the listener is closed: from this line on, a new connection is refused.
    process.stdout.write(`${JSON.stringify({ level: "info", msg: "draining", signal })}\n`);
    void drained
      .then(() => Promise.all([pool.close(), store.close()]))
      .finally(() => process.exit(0));
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}

main();
