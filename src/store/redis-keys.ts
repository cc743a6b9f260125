/**
 * Key layout under `store.redis.key_prefix` (default `cg:`), in `standalone` mode:
 * - `<prefix>e:<key>`: hash of one original: field `v` holds the value, one field
 *   `o:<session>` per owning session. Value and owners live and expire together.
 * - `<prefix>l:<session>`: hash of the session's ledger (§4a): field `t` the time of its last
 *   request, `h:<conversation id>` one encoded head each, `k:<content id>` one kept-verbatim id
 *   each (its value orders them), `kn` the last order number given, `c` the session's learned
 *   cache lifetime (ms), `s` its latest cache observation (encoded).
 * - `<prefix>n:<name>`: one number the whole deployment shares (Store `sharedNumber`), e.g.
 *   `n:lifetime`, the deployment's learned cache lifetime (src/cache/deployment-lifetime.ts).
 *
 * In `cluster` mode every key of one session carries the hash tag `{<session>}`, so they share
 * one hash slot and a request's write stays one MULTI/EXEC on one shard:
 * `<prefix>{<session>}e:<key>` and `<prefix>{<session>}l`. An original stashed by two sessions
 * is then kept once per session. Keys of the whole deployment (`n:<name>`, `hash-key`) are one
 * key each and live wherever their slot falls. A new per-session key takes the session in both
 * layouts below, so it lands in the session's slot.
 */
export function redisKeys(prefix: string, mode: RedisMode = "standalone"): RedisKeys {
  const shared = (name: string) => `${prefix}n:${name}`;
  if (mode === "cluster") {
    const slot = (session: string) => `${prefix}{${session}}`;
    return {
      entry: (session, key) => `${slot(session)}e:${key}`,
      ledger: (session) => `${slot(session)}l`,
      shared,
    };
  }
  return {
    entry: (_session, key) => `${prefix}e:${key}`,
    ledger: (session) => `${prefix}l:${session}`,
    shared,
  };
}

export type RedisMode = "standalone" | "cluster";

/** The store's key names; every per-session key takes the session (its slot in cluster mode). */
export interface RedisKeys {
  /** The original `key` as stashed by `session`. */
  entry(session: string, key: string): string;
  ledger(session: string): string;
  /** The deployment's shared number `name`. */
  shared(name: string): string;
}

export const LAST_REQUEST_FIELD = "t";
export const HEAD_PREFIX = "h:";
export const KEPT_PREFIX = "k:";
export const LIFETIME_FIELD = "c";
export const OBSERVED_FIELD = "s";

/**
 * Compare-and-set of the shared number KEYS[1]: if it holds ARGV[1] (compared as numbers; '' for
 * unset, and a value that is not a number counts as unset), sets it to ARGV[2] for ARGV[3] ms.
 * Returns {1, ARGV[2]} when set, else {0, what it holds ('' for nothing)}.
 */
export const SWAP_NUMBER_LUA = `
local held = redis.call('GET', KEYS[1])
if tonumber(held or '') == tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return {1, ARGV[2]}
end
return {0, held or ''}
`;

export const VALUE_FIELD = "v";

export function ownerField(session: string): string {
  return `o:${session}`;
}

/**
 * Reads the value of KEYS[1] for owner field ARGV[1] and slides its TTL to ARGV[2] ms, in one
 * round trip; a non-owner neither reads nor extends it.
 */
export const GET_OWNED_LUA = `
local found = redis.call('HMGET', KEYS[1], '${VALUE_FIELD}', ARGV[1])
if found[1] and found[2] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return found[1]
end
return false
`;

/**
 * Adds ARGV[3..] as the newest kept-verbatim ids of the ledger KEYS[1] (order numbers continue
 * after `kn`, so order needs no clock and holds across replicas), drops the oldest beyond the
 * ARGV[1] newest, and sets the ledger's TTL to ARGV[2] ms.
 */
export const KEEP_LUA = `
local order = tonumber(redis.call('HGET', KEYS[1], 'kn') or '0')
for index = 3, #ARGV do
  order = order + 1
  redis.call('HSET', KEYS[1], '${KEPT_PREFIX}' .. ARGV[index], order)
end
redis.call('HSET', KEYS[1], 'kn', order)
local fields = redis.call('HGETALL', KEYS[1])
local kept = {}
for index = 1, #fields, 2 do
  if string.sub(fields[index], 1, 2) == '${KEPT_PREFIX}' then
    table.insert(kept, { fields[index], tonumber(fields[index + 1]) })
  end
end
local cap = tonumber(ARGV[1])
if #kept > cap then
  table.sort(kept, function(a, b) return a[2] < b[2] end)
  for index = 1, #kept - cap do redis.call('HDEL', KEYS[1], kept[index][1]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 0
`;
