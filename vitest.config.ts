import { configDefaults, defineConfig } from "vitest/config";

/**
 * The test suites (vitest projects), each run by `npm run test:<name>`; `npm run test:all` runs
 * them all. A test file belongs to exactly one: the suite whose `include` names it, else `unit`,
 * which `npm test` runs. test/suites.test.ts holds the rule: no file in two suites, none in
 * none, no entry naming a file that is gone, and no `unit` file that starts a redis-server.
 */
export const suites = {
  /** A real redis-server (skipped with a message without one; required with CI=true). */
  redis: {
    include: [
      "test/redis/**/*.test.ts",
      "test/store/big-originals.test.ts",
      "test/store/put-ledger.test.ts",
      "test/store/redis.test.ts",
      "test/store/shared-number.test.ts",
    ],
    exclude: ["test/redis/cluster.test.ts"],
  },
  /** Six redis-server nodes joined by redis-cli into a Redis Cluster. */
  cluster: { include: ["test/redis/cluster.test.ts"], exclude: [] },
  /**
   * Properties over thousands of generated bodies, faults, memory and time bounds: servers
   * under their heap flags, worker threads given the largest bodies, outputs of millions of
   * lines, texts of thousands of long lines.
   */
  reliability: {
    include: [
      "test/reliability/**/*.test.ts",
      "test/compaction/routes.test.ts",
      "test/compaction/worker-pool.test.ts",
      "test/components/test-runs-long-command.test.ts",
      "test/pipeline/bound.test.ts",
      "test/pipeline/huge-output.test.ts",
      "test/routes/body-buffers-socket.test.ts",
      "test/session/chain-retention.test.ts",
      "test/text/count-lines.test.ts",
    ],
    exclude: [],
  },
  /** The real requests of ../shared/corpus through the service (skipped with a message without it). */
  corpus: {
    include: ["test/corpus/**/*.test.ts", "test/deploy/published-clients.test.ts"],
    exclude: [],
  },
  /**
   * The service started as a process (`src/server.ts`), the CLIs that check its files, and the
   * pieces of the real-agent run (`npm run e2e:agents`: its scripted model, tap and checks).
   */
  e2e: {
    include: [
      "test/e2e-agents/**/*.test.ts",
      "test/deploy/dockerfile.test.ts",
      "test/deploy/openapi-document.test.ts",
      "test/deploy/reversible-proxy.test.ts",
      "test/deploy/server-cli.test.ts",
      "test/deploy/server-process.test.ts",
      "test/store/redis-client-load.test.ts",
    ],
    exclude: [],
  },
} satisfies Record<string, { include: string[]; exclude: string[] }>;

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["test/**/*.test.ts"],
          exclude: [
            ...configDefaults.exclude,
            ...Object.values(suites).flatMap((suite) => suite.include),
          ],
          // In-process files, one worker per CPU, each worker running file after file in one
          // module graph (src is loaded once a worker, not once a file): a file builds its own
          // app and store and restores what it stubs. The other suites run after it, each file
          // in its own process, one at a time beside the servers and processes they start.
          maxWorkers: "100%",
          isolate: false,
        },
      },
      ...Object.entries(suites).map(([name, suite]) => ({
        extends: true as const,
        test: {
          name,
          include: suite.include,
          exclude: [...configDefaults.exclude, ...suite.exclude],
          sequence: { groupOrder: 1 },
        },
      })),
    ],
  },
});
