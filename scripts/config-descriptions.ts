/** What each setting does, keyed as the configuration table shows it. */
export const descriptions: Readonly<Record<string, string>> = {
  preset:
    "Named pipeline: `off`, `safe`, `balanced`, `agent`, `aggressive`, `summarize`, `llmd-toon`.",
  pipeline: "Explicit component list; wins over `preset`. An unknown name stops start-up.",
  marker_mode:
    "How offloaders mark what they dropped: `full` (`<<cg:HASH>>`, stashed), `summary` (`⟪cg⟫`), `off` (nothing). `full` without a persisting store acts as `off`.",
  exclude_tools:
    "Tools whose outputs no component changes (names without regard to case): the expand tool's results, sub-agent reports, task lists and plans, the user's answers. Set `[]` to compact them too.",
  "components.<name>.marker_mode": "Overrides `marker_mode` for one component.",
  "components.<name>.exclude_tools":
    "Tools whose outputs this component leaves alone, besides the global `exclude_tools`.",
  "components.<name>.trigger.min_request_tokens":
    "Run the component only when the request has at least this many message tokens (0: always).",
  "components.<name>.trigger.min_messages":
    "Run the component only when the request has at least this many messages (0: always).",
  "components.<name>.trigger.min_output_tokens":
    "Consider only tool outputs of at least this many tokens (0: all).",
  "components.{format,toon,textclean,searchfold,mask_calls,linecap}.min_tokens":
    "Outputs (mask_calls: argument values, an edit's text, a written file, a patch) below this many tokens are left alone.",
  "components.mask.keep_recent":
    "The newest tool outputs kept verbatim whatever their need (every output of the newest turn is kept too); older ones are masked unless the agent still works with them.",
  "components.mask.working_set_tokens":
    "Most tokens of older outputs mask keeps because the agent still works with them (a file its newest calls or words name, the read of a file it has edited since), kept from the newest back.",
  "components.mask_calls.keep_recent":
    "The agent's newest answered tool calls kept whole; older ones have their long argument values cleared.",
  "components.{mask,dedup,failed_run,cmdfilter}.min_tokens":
    "Outputs below this many tokens are left alone.",
  "components.collapse.max_tokens": "Outputs over this many tokens are collapsed.",
  "components.collapse.max_fact_tokens":
    "File reads, diffs and search results (the facts the agent asked for) are collapsed only over this many tokens.",
  "components.collapse.head_lines": "Lines kept from the start of a collapsed output.",
  "components.collapse.tail_lines": "Lines kept from the end of a collapsed output.",
  "components.smartcrush.min_items": "JSON arrays with fewer items are left alone.",
  "components.smartcrush.keep_first": "Items kept from the start of the array.",
  "components.smartcrush.keep_last": "Items kept from the end of the array.",
  "components.smartcrush.min_tokens": "Outputs below this many tokens are left alone.",
  "components.extract.min_tokens": "Outputs below this many tokens are left alone.",
  "components.linecap.max_line_chars": "Longer lines are cut in the middle (`...[cut]...`).",
  "components.{summarize,extract_llm}.model.source":
    "`configured`: the model below; `incoming`: the request's own provider, model and credentials.",
  "components.{summarize,extract_llm}.model.provider": "API shape of the cheap model.",
  "components.{summarize,extract_llm}.model.base_url": "Base URL of the cheap model's API.",
  "components.{summarize,extract_llm}.model.model": "Model name sent to the cheap model.",
  "components.{summarize,extract_llm}.model.api_key":
    "Key for the cheap model (prefer `api_key_env`).",
  "components.{summarize,extract_llm}.model.api_key_env":
    "Environment variable holding the cheap model's key.",
  "components.{summarize,extract_llm}.model.auth_style":
    "How the key is sent; default by provider (OpenAI `bearer`, Anthropic `x-api-key`).",
  "components.{summarize,extract_llm}.model.timeout_ms":
    "Deadline for one model call; past it the component no-ops.",
  "components.{summarize,extract_llm}.model.max_concurrency":
    "Concurrent calls to one model endpoint.",
  "components.{summarize,extract_llm}.model.max_retries": "Retries of a failed model call.",
  "components.summarize.keep_last": "Trailing turns kept verbatim after the summary.",
  "components.summarize.level": "Summary length.",
  "components.summarize.resummarize_tokens":
    "Grown past this many tokens since the last summary, the middle is summarised again.",
  "components.extract_llm.min_tokens": "Outputs below this many tokens are left alone.",
  "store.enabled":
    "Keep originals so markers can be resolved. `false` is clean mode: nothing stored, no expand tool.",
  "store.backend": "`memory` (per process) or `redis` (shared by replicas).",
  "store.ttl_seconds":
    "How long an original is kept; every read slides it, and a session that keeps sending it puts it again every half of it.",
  "store.max_entries": "Memory store: most originals held (LRU beyond).",
  "store.max_sessions": "Memory store: most sessions recorded as owners of one original.",
  "store.max_bytes":
    "Memory store: most bytes held — originals, keys and owner ids, plus 256 per entry for its bookkeeping (LRU beyond). The bound that binds at the defaults.",
  "store.max_session_bytes":
    "Memory store: most bytes one session may hold (default the larger of `max_bytes` / 8 and `limits.body_bytes`, so one output as large as a body can be kept, within `max_bytes`), and the same fraction of `max_entries`; past it the session's own least recently used originals go first.",
  "store.max_entry_bytes":
    "Largest value of one store entry; a larger original is kept in pieces of at most this size, which live and expire together.",
  "store.max_kept_ids":
    "Expanded originals remembered per session: later decisions keep them verbatim.",
  "store.max_ledger_bytes":
    "Memory store: bytes of session ledgers (what was returned for each message) held; least recently used dropped beyond.",
  "store.timeout_ms": "Deadline for one store call; past it the offload is reverted.",
  "store.hash_key":
    "Key of the marker ids (HMAC-SHA-256). Unset: a random key per process, or on Redis one key shared by the replicas (`<prefix>hash-key`, created once). Set it from a Secret to keep ids across restarts.",
  "store.redis.url": "Redis connection URL.",
  "store.redis.key_prefix": "Prefix of every Redis key the service writes.",
  "store.redis.mode":
    "`standalone` (one Redis at `url`) or `cluster` (Redis Cluster / Valkey cluster through `nodes`; docs/redis.md).",
  "store.redis.nodes":
    "Cluster mode: seed nodes, `redis://[:password@]host:port` (`rediss://` for TLS); comma-separated in the environment.",
  "cache.policy":
    "`freeze`: messages already sent come back byte for byte as before, and only a cold cache re-decides the head; `ignore`: every request is decided afresh.",
  "cache.ttl_seconds":
    "A session whose previous request is older than this meets a cold prompt cache: its head may be re-decided. The proxy routes learn the real lifetime (per session and deployment) from the cached tokens the model server reports; this is where learning starts.",
  "cache.pricing":
    "What a cached and an uncached prompt token cost, for priced breaks of a warm prefix: `auto` (Anthropic-shaped bodies as `anthropic`, read 0.1 write 1.25; others as `openai`), `anthropic`, `openai` and `vllm` (read 0.1, write 1), `prefill-only` (a cached token is free: never break on purpose), or `{read, write}` in units of one uncached token.",
  "cache.context_budget_tokens":
    "A request with more message tokens than this is re-decided even while warm (0: never), in one event that clears it to `cache.budget_low_water`.",
  "cache.budget_low_water":
    "Where a context-budget event clears to, as a share of `cache.context_budget_tokens`; an event that cannot clear to it (or by the room between it and the budget) is not taken, so the budget never breaks every turn.",
  inject_expand:
    "Inject the `context_guru_expand` tool: `auto` (when the request has tools, carries markers and the store persists), `always`, `never`.",
  "upstream.openai.base_url":
    "OpenAI-compatible upstream of `POST /v1/chat/completions` (`/chat/completions`) and `POST /v1/responses` (`/responses`).",
  "upstream.openai.api_key":
    "Gateway key sent upstream instead of the client's credentials; requires `auth.token` on the route.",
  "upstream.anthropic.base_url": "Anthropic-compatible upstream of `POST /v1/messages`.",
  "upstream.anthropic.api_key":
    "Gateway key sent upstream instead of the client's credentials; requires `auth.token` on the route.",
  "upstream.first_byte_timeout_ms":
    "Deadline for an upstream's response headers (`504` past it), and for each round of the expand loop to be decided (past it the response streams through); streams have no overall limit.",
  "upstream.max_expand_rounds": "Upstream re-invocations the expand loop may make per request.",
  "upstream.max_expand_buffer_bytes":
    "Bytes of an upstream response the proxy holds back to see whether it calls the expand tool; beyond them (or past `first_byte_timeout_ms` for the round) the client gets what arrived and the rest as it comes, and the loop stops.",
  "limits.memo_bytes":
    "Memory for the in-process memos (token counts, content ids, component results, each session's last request as read) that make a re-sent history cheap; with `store.max_bytes` it bounds what the process holds (per thread).",
  "limits.body_bytes": "Largest request body; over it `413`.",
  "limits.compact_timeout_ms":
    "Deadline for one compaction, whatever thread it runs on; past it /compact answers the original body and the proxy forwards it.",
  "limits.rehydrate_timeout_ms":
    "Deadline for one /rehydrate, whatever thread it runs on; past it `503` with `retry-after`. Longer than the compaction deadline: a rehydration has no original body to fall back on.",
  "limits.inflight_bytes":
    "Bytes of bodies compacted or rehydrated at once; a body beyond it gets its original bytes at once (`/rehydrate`: `503` with `retry-after`).",
  "limits.worker_min_bytes":
    "Bodies of at least this many bytes are compacted on a worker thread; smaller ones on the event loop. Every `/rehydrate` runs on a worker thread: a small body may restore an original of megabytes.",
  "limits.compact_workers":
    "Compaction worker threads; `0`: one per CPU of the container's quota. With two or more, bodies of 1 MiB and more take at most all but one.",
  "limits.header_timeout_ms": "Deadline for a client to send its request headers.",
  "limits.request_timeout_ms":
    "Deadline for a client to send a whole request, body included (`408` and the connection closed); at least `header_timeout_ms`.",
  "limits.keep_alive_timeout_ms":
    "How long an idle keep-alive connection stays open. Keep it above the idle timeout of the clients (the llm-d router's `idle_conn_timeout` is 90 s), so the client closes first.",
  "limits.max_header_bytes": "Largest request header block.",
  "auth.token":
    "Bearer token required on `/expand`, `/rehydrate` and `/metrics` when set, and on each proxy route that has a gateway key (required then).",
  "server.port": "Listening port.",
  "server.host":
    "Listening address of every route. `127.0.0.1` keeps a sidecar reachable from its own pod only.",
  "server.probe_port":
    "When set, a second listener on all interfaces serving only `/livez`, `/healthz`, `/readyz` and `/metrics`, for the kubelet and Prometheus when `server.host` is loopback.",
  "server.shutdown_timeout_ms":
    "After SIGTERM: readiness turns false and in-flight requests drain for at most this long.",
  "log.level": "Log level of the JSON logs (one line per request at `info`).",
};
