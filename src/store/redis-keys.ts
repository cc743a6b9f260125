/**
 * Key layout under `store.redis.key_prefix` (default `cg:`):
 * - `<prefix>e:<key>`: hash of one original: field `v` holds the value, one field
 *   `o:<session>` per owning session. Value and owners live and expire together.
 * - `<prefix>s:<session>`: sorted set of the session's sticky ids, scored by insertion order.
 */
export function redisKeys(prefix: string) {
  return {
    entry: (key: string) => `${prefix}e:${key}`,
    sticky: (session: string) => `${prefix}s:${session}`,
  };
}

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
 * Adds ARGV[3..] to the sticky set KEYS[1] as its newest members (scores continue after the
 * highest one, so order needs no clock and holds across replicas), trims it to the ARGV[1]
 * newest, and sets its TTL to ARGV[2] ms.
 */
export const ADD_STICKY_LUA = `
local top = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
local score = top[2] and tonumber(top[2]) or 0
for index = 3, #ARGV do
  score = score + 1
  redis.call('ZADD', KEYS[1], score, ARGV[index])
end
redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -1 - tonumber(ARGV[1]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 0
`;
