import { z } from "zod";
import { DEFAULT_EXCLUDED_TOOLS } from "./excluded-tools.js";

/** How an offloader marks what it dropped (§6). */
export const markerModeSchema = z.enum(["full", "summary", "off"]);
export type MarkerMode = z.infer<typeof markerModeSchema>;

const count = z.number().int().nonnegative();
const positive = z.number().int().positive();

/** Gates for costly components (§4); 0 means no constraint. */
export const triggerSchema = z.strictObject({
  min_request_tokens: count.default(0),
  min_messages: count.default(0),
  min_output_tokens: count.default(0),
});
export type Trigger = z.infer<typeof triggerSchema>;

/** A cheap model used by the LLM-backed components (§5, second table). */
export const modelSchema = z.strictObject({
  source: z.enum(["configured", "incoming"]).default("configured"),
  provider: z.enum(["openai", "anthropic"]).default("openai"),
  base_url: z.url().optional(),
  model: z.string().min(1).optional(),
  api_key: z.string().min(1).optional(),
  api_key_env: z.string().min(1).optional(),
  auth_style: z.enum(["bearer", "x-api-key"]).optional(),
  timeout_ms: positive.default(10_000),
  max_concurrency: positive.default(4),
  max_retries: count.default(2),
});
export type ModelConfig = z.infer<typeof modelSchema>;

/** Tool names whose outputs are left as they are (case-insensitive). */
const toolNames = z.array(z.string().min(1));

/** Options every component accepts. */
const common = {
  marker_mode: markerModeSchema.optional(),
  trigger: triggerSchema.prefault({}),
  exclude_tools: toolNames.default([]),
};

export const componentsSchema = z.strictObject({
  format: z.strictObject({ ...common, min_tokens: count.default(50) }).prefault({}),
  toon: z.strictObject({ ...common, min_tokens: count.default(50) }).prefault({}),
  textclean: z.strictObject({ ...common, min_tokens: count.default(50) }).prefault({}),
  searchfold: z.strictObject({ ...common, min_tokens: count.default(50) }).prefault({}),
  mask: z
    .strictObject({
      ...common,
      keep_recent: count.default(1),
      min_tokens: count.default(100),
      /** Most tokens of older outputs kept because the agent still works with them. */
      working_set_tokens: count.default(3000),
    })
    .prefault({}),
  mask_calls: z
    .strictObject({ ...common, keep_recent: count.default(2), min_tokens: count.default(50) })
    .prefault({}),
  dedup: z.strictObject({ ...common, min_tokens: count.default(100) }).prefault({}),
  failed_run: z.strictObject({ ...common, min_tokens: count.default(100) }).prefault({}),
  collapse: z
    .strictObject({
      ...common,
      max_tokens: positive.default(2000),
      max_fact_tokens: positive.default(8000),
      head_lines: count.default(20),
      tail_lines: count.default(20),
    })
    .prefault({}),
  smartcrush: z
    .strictObject({
      ...common,
      min_items: positive.default(5),
      keep_first: count.default(3),
      keep_last: count.default(2),
      min_tokens: count.default(200),
    })
    .prefault({}),
  extract: z.strictObject({ ...common, min_tokens: count.default(300) }).prefault({}),
  linecap: z
    .strictObject({
      ...common,
      max_line_chars: positive.default(500),
      min_tokens: count.default(50),
    })
    .prefault({}),
  cmdfilter: z.strictObject({ ...common, min_tokens: count.default(100) }).prefault({}),
  summarize: z
    .strictObject({
      ...common,
      model: modelSchema.prefault({}),
      keep_last: positive.default(6),
      level: z.enum(["concise", "regular", "detailed"]).default("regular"),
      resummarize_tokens: positive.default(8000),
    })
    .prefault({}),
  extract_llm: z
    .strictObject({
      ...common,
      model: modelSchema.prefault({}),
      min_tokens: count.default(1000),
    })
    .prefault({}),
});
export type ComponentsConfig = z.infer<typeof componentsSchema>;
export type ComponentName = keyof ComponentsConfig;
export const componentNames = Object.keys(componentsSchema.shape) as ComponentName[];

export const storeSchema = z.strictObject({
  enabled: z.boolean().default(true),
  backend: z.enum(["memory", "redis"]).default("memory"),
  ttl_seconds: positive.default(1800),
  max_entries: positive.default(200_000),
  max_sessions: positive.default(100),
  max_bytes: positive.default(256 * 1024 * 1024),
  /**
   * Memory store: most bytes one session may hold; default the larger of max_bytes / 8 and
   * limits.body_bytes, within max_bytes (src/store/session-quota.ts).
   */
  max_session_bytes: positive.optional(),
  /** Largest value of one store entry; a larger original is kept in pieces (store/pieces.ts). */
  max_entry_bytes: positive.default(8 * 1024 * 1024),
  /** Expanded originals remembered per session, kept verbatim by later decisions. */
  max_kept_ids: positive.default(4096),
  /** Memory store: bytes of session ledgers held (least recently used dropped beyond). */
  max_ledger_bytes: positive.default(32 * 1024 * 1024),
  /** Deadline for one store operation; past it the offload is reverted. */
  timeout_ms: positive.default(250),
  /**
   * Key of the marker ids (HMAC-SHA-256, §6). Unset: a random key per process, or on Redis the
   * key the replicas share (src/hash-key/resolve.ts).
   */
  hash_key: z.string().min(16).optional(),
  redis: z
    .strictObject({
      url: z.string().min(1).default("redis://127.0.0.1:6379"),
      key_prefix: z.string().default("cg:"),
      /** `cluster`: Redis Cluster / Valkey cluster through `nodes` (src/store/redis-client.ts). */
      mode: z.enum(["standalone", "cluster"]).default("standalone"),
      /** Cluster seeds, `redis://[:password@]host:port` (`rediss://` for TLS); `url` is unused. */
      nodes: z
        .array(z.string().regex(/^rediss?:\/\/[^/]+/, "a redis:// or rediss:// URL"))
        .default([]),
    })
    .refine((redis) => redis.mode === "standalone" || redis.nodes.length > 0, {
      message: "cluster mode needs at least one seed in store.redis.nodes",
      path: ["nodes"],
    })
    .refine((redis) => redis.mode === "standalone" || !/[{}]/.test(redis.key_prefix), {
      message: "in cluster mode the key prefix must not hold { or } (they make hash tags)",
      path: ["key_prefix"],
    })
    .prefault({}),
});
export type StoreConfig = z.infer<typeof storeSchema>;

const upstreamTarget = (baseUrl: string) =>
  z
    .strictObject({
      base_url: z.url().default(baseUrl),
      /** Gateway key that replaces the client's credentials upstream. */
      api_key: z.string().min(1).optional(),
    })
    .prefault({});

export const upstreamSchema = z.strictObject({
  openai: upstreamTarget("https://api.openai.com/v1"),
  anthropic: upstreamTarget("https://api.anthropic.com"),
  first_byte_timeout_ms: positive.default(120_000),
  max_expand_rounds: count.max(3).default(3),
  /** Bytes of a response held back to see whether it calls expand; beyond it, it streams through. */
  max_expand_buffer_bytes: positive.default(4 * 1024 * 1024),
});

export const limitsSchema = z
  .strictObject({
    body_bytes: positive.default(32 * 1024 * 1024),
    /**
     * Memory for the in-process memos (token counts, content ids, component results, each
     * session's last request as read) that make a re-sent history cheap; with the store's
     * max_bytes it bounds what the process holds.
     */
    memo_bytes: positive.default(64 * 1024 * 1024),
    /** Deadline for a whole /compact run; past it the original body is returned. */
    compact_timeout_ms: positive.default(2_000),
    /**
     * Deadline for one /rehydrate: no original-bytes answer to fall back on, so it is the bound
     * of real overload (then `503`), not the compaction deadline.
     */
    rehydrate_timeout_ms: positive.default(30_000),
    header_timeout_ms: positive.default(30_000),
    max_header_bytes: positive.default(64 * 1024),
    /** Bytes of bodies compacted or rehydrated at once; a body beyond it gets its answer at once. */
    inflight_bytes: positive.default(64 * 1024 * 1024),
    /** Bodies of at least this many bytes are compacted on a worker thread, smaller ones inline. */
    worker_min_bytes: positive.default(64 * 1024),
    /** Compaction worker threads; 0: one per CPU of the container's quota. */
    compact_workers: count.default(0),
    /** Deadline for a client to send a whole request (headers and body); at least header_timeout_ms. */
    request_timeout_ms: positive.default(60_000),
    /** How long an idle keep-alive connection stays open; longer than clients keep theirs. */
    keep_alive_timeout_ms: positive.default(95_000),
  })
  .refine((limits) => limits.request_timeout_ms >= limits.header_timeout_ms, {
    path: ["request_timeout_ms"],
    message: "must be at least limits.header_timeout_ms",
  });

/** Prompt-cache policy (§4a): what already-sent messages may become, and when. */
export const cacheSchema = z.strictObject({
  /** `freeze`: already-sent messages come back as before; `ignore`: every request is re-decided. */
  policy: z.enum(["freeze", "ignore"]).default("freeze"),
  /**
   * A session idle for longer than this meets a cold cache: its head may be re-decided. The
   * proxy routes learn the real lifetime from the cached tokens the server reports; this is
   * where learning starts.
   */
  ttl_seconds: positive.default(300),
  /**
   * What the model server bills a cached and an uncached prompt token, in units of one uncached
   * token: prices priced breaks of a warm prefix (`cache/pricing.ts`). `auto`: Anthropic-shaped
   * bodies as `anthropic`, others as `openai`; `prefill-only` (a cached token is free): never.
   */
  pricing: z
    .union([
      z.enum(["auto", "anthropic", "openai", "vllm", "prefill-only"]),
      z
        .strictObject({
          read: z.number().nonnegative().max(1),
          write: z.number().positive().max(10),
        })
        .refine((price) => price.read <= price.write, {
          path: ["read"],
          message: "must be at most write",
        }),
    ])
    .default("auto"),
  /**
   * Over this many message tokens a warm request is re-decided too (0: never), in one event that
   * clears it down to `budget_low_water`.
   */
  context_budget_tokens: count.default(0),
  /** Where a budget event clears to: a share of `context_budget_tokens` (0.6: 60 %). */
  budget_low_water: z.number().positive().max(1).default(0.6),
});
export type CacheConfig = z.infer<typeof cacheSchema>;

export const configSchema = z.strictObject({
  preset: z.string().min(1).default("agent"),
  pipeline: z.array(z.string().min(1)).optional(),
  marker_mode: markerModeSchema.default("full"),
  exclude_tools: toolNames.default([...DEFAULT_EXCLUDED_TOOLS]),
  components: componentsSchema.prefault({}),
  store: storeSchema.prefault({}),
  cache: cacheSchema.prefault({}),
  inject_expand: z.enum(["auto", "always", "never"]).default("auto"),
  upstream: upstreamSchema.prefault({}),
  limits: limitsSchema.prefault({}),
  auth: z.strictObject({ token: z.string().min(16).optional() }).prefault({}),
  server: z
    .strictObject({
      port: z.number().int().min(0).max(65535).default(4000),
      host: z.string().min(1).default("0.0.0.0"),
      /** A second listener on every interface that serves only the probes and /metrics. */
      probe_port: z.number().int().min(0).max(65535).optional(),
      /** How long in-flight requests may drain after SIGTERM before the process exits. */
      shutdown_timeout_ms: positive.default(8_000),
    })
    .prefault({}),
  log: z
    .strictObject({
      level: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
    })
    .prefault({}),
});

export type Config = z.infer<typeof configSchema>;
export type ConfigInput = z.input<typeof configSchema>;
