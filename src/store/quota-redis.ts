/**
 * The quota store on Redis: each put and each get is one Lua script, so
 * replicas sharing the Redis apply the rules of quota.ts atomically, with
 * Redis's own clock. Keys, under the store's namespace:
 *
 * - `<owner>/<id>`: the value, as keyv stores it (`{"value": …, "expires": …}`), with its TTL;
 * - `q/<owner>/live`: sorted set, the owner's live ids by expiry (so oldest first);
 * - `q/<owner>/size`: hash, each live id's accounted bytes, and `*` their sum;
 * - `q/<owner>/evicted`: sorted set, ids evicted for room, by the time they would have expired;
 * - `q/all`: sorted set of `<owner>/<id>` by expiry, so any put clears anyone's expired entries;
 * - `q/sizes`: hash, each `<owner>/<id>`'s accounted bytes, kept as long as `q/all`: an owner's own keys
 *   expire with its last value, and what it held must still be taken off the sum when the sweep meets it;
 * - `q/bytes`: the sum over all owners.
 *
 * The scripts name keys they compute (another owner's, met among the
 * expired), so the store must be one Redis (or a primary with replicas),
 * not a Redis Cluster.
 */
import { StoreError, type KeyValue, type ScriptRunner } from "./kv.js";
import { MAX_REMEMBERED, measure, ownedKey, refusal, type Lookup, type QuotaLimits, type QuotaStore, type Stored } from "./quota.js";

/** Expired entries of other owners cleared per put: enough to keep up, bounded so one put never stalls Redis. */
const SWEEP = 200;

const COMMON = `
local prefix = ARGV[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

// KEYS: live, size, evicted, all, bytes, value, sizes. ARGV: prefix, owner, id, bytes, ttl, quota, total, json, remembered, sweep.
const PUT = `${COMMON}
local owner, id = ARGV[2], ARGV[3]
local bytes, ttl, quota, total = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
-- The first write decides: a Redis at maxmemory (noeviction) refuses it, and so the whole script, before anything changed.
redis.call('INCRBY', KEYS[5], 0)
local function forget(o, i)
  local sizes = prefix .. 'q/' .. o .. '/size'
  local member = o .. '/' .. i
  -- Its size from the shared hash (the owner's own may have expired with its last value), else the owner's (a value put by an earlier release).
  local s = tonumber(redis.call('HGET', KEYS[7], member) or redis.call('HGET', sizes, i) or '0')
  redis.call('HDEL', KEYS[7], member)
  redis.call('HDEL', sizes, i)
  if s > 0 then
    if redis.call('HINCRBY', sizes, '*', -s) <= 0 then redis.call('HDEL', sizes, '*') end
    redis.call('DECRBY', KEYS[5], s)
  end
  redis.call('ZREM', prefix .. 'q/' .. o .. '/live', i)
  redis.call('ZREM', KEYS[4], member)
end
-- Owners hold no '/' (principals, profile names); ids may.
for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, tonumber(ARGV[10]))) do
  local o, i = string.match(m, '^([^/]*)/(.*)$')
  if o then forget(o, i) else redis.call('ZREM', KEYS[4], m) end
end
for _, i in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now)) do forget(owner, i) end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
-- A value put again under its id replaces the one before: the checks count it as gone, and it is forgotten only once the new one is taken.
local replaces = redis.call('ZSCORE', KEYS[1], id)
local old = replaces and tonumber(redis.call('HGET', KEYS[2], id) or '0') or 0
local used = tonumber(redis.call('HGET', KEYS[2], '*') or '0') - old
local held = tonumber(redis.call('GET', KEYS[5]) or '0') - old
if bytes > quota then return {'over_quota', used, held} end
local evict, freed = {}, 0
if used + bytes > quota then
  for _, i in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    if used - freed + bytes <= quota then break end
    if i ~= id then
      table.insert(evict, i)
      freed = freed + tonumber(redis.call('HGET', KEYS[2], i) or '0')
    end
  end
end
if held - freed + bytes > total then return {'total_full', used, held} end
if replaces then forget(owner, id) end
for _, i in ipairs(evict) do
  local expires = redis.call('ZSCORE', KEYS[1], i)
  forget(owner, i)
  redis.call('DEL', prefix .. owner .. '/' .. i)
  redis.call('ZADD', KEYS[3], expires, i)
end
local remembered = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[9])
if remembered > 0 then redis.call('ZREMRANGEBYRANK', KEYS[3], 0, remembered - 1) end
redis.call('SET', KEYS[6], ARGV[8], 'PX', ttl)
redis.call('ZADD', KEYS[1], now + ttl, id)
redis.call('HSET', KEYS[2], id, bytes)
used = redis.call('HINCRBY', KEYS[2], '*', bytes)
redis.call('ZADD', KEYS[4], now + ttl, owner .. '/' .. id)
redis.call('HSET', KEYS[7], owner .. '/' .. id, bytes)
redis.call('INCRBY', KEYS[5], bytes)
for _, k in ipairs({1, 2, 3, 4, 5, 7}) do
  if redis.call('PTTL', KEYS[k]) < ttl then redis.call('PEXPIRE', KEYS[k], ttl) end
end
return {'ok', used, #evict}
`;

// KEYS: value, live, evicted. ARGV: prefix, id.
const GET = `${COMMON}
local value = redis.call('GET', KEYS[1])
if value then return {'found', value} end
local evicted = redis.call('ZSCORE', KEYS[3], ARGV[2])
if evicted and tonumber(evicted) > now then return {'evicted'} end
local live = redis.call('ZSCORE', KEYS[2], ARGV[2])
if live and tonumber(live) > now then return {'dropped'} end
return {'missing'}
`;

// What the operator should know of the Redis metatools shares: its memory bound and eviction policy.
const INFO = `return redis.call('INFO', 'memory')`;

export class RedisQuotaStore implements QuotaStore {
  private readonly run: ScriptRunner;

  constructor(
    private readonly kv: KeyValue,
    readonly limits: QuotaLimits,
  ) {
    if (!kv.script) throw new StoreError(kv.where, "the Redis quota store needs a store that runs scripts");
    this.run = kv.script.bind(kv);
  }

  get kind() {
    return this.kv.kind;
  }

  get where() {
    return this.kv.where;
  }

  async put(owner: string, id: string, value: unknown, ttlMs: number): Promise<Stored> {
    const { json, bytes } = measure(owner, id, value);
    const mine = (suffix: string) => `q/${owner}/${suffix}`;
    const keys = [mine("live"), mine("size"), mine("evicted"), "q/all", "q/bytes", ownedKey(owner, id), "q/sizes"];
    // Wrapped as keyv wraps a value, so replicas of the version before and after an upgrade read each other's handles.
    const stored = `{"value":${json},"expires":${Date.now() + ttlMs}}`;
    const args = [owner, id, bytes, Math.ceil(ttlMs), this.limits.ownerBytes, this.limits.totalBytes, stored, MAX_REMEMBERED, SWEEP].map(String);
    const reply = (await this.run(PUT, keys, args)) as [string, number, number];
    const [outcome, used] = reply;
    if (outcome === "over_quota" || outcome === "total_full") throw refusal(this.where, outcome, bytes, Number(used), this.limits);
    return { bytes, room: this.limits.ownerBytes - bytes, used: Number(used) };
  }

  async get<T>(owner: string, id: string): Promise<Lookup<T>> {
    const keys = [ownedKey(owner, id), `q/${owner}/live`, `q/${owner}/evicted`];
    const [outcome, json] = (await this.run(GET, keys, [id])) as [string, string?];
    if (outcome === "found") return { kind: "found", value: (JSON.parse(json!) as { value: T }).value };
    return { kind: outcome === "evicted" || outcome === "dropped" ? outcome : "missing" };
  }

  /**
   * A warning for the operator when the Redis can drop what metatools
   * promised: no `maxmemory`, or a policy that evicts keys. Every key
   * metatools writes has a TTL, so a `volatile-*` policy may evict any of
   * them (a sign-in, a cache generation, a handle), as `allkeys-*` would.
   */
  async advice(): Promise<string | undefined> {
    const info = String(await this.run(INFO, [], []));
    const field = (name: string) => new RegExp(`^${name}:(.*)$`, "m").exec(info)?.[1]?.trim();
    const maxmemory = Number(field("maxmemory") ?? "0");
    const policy = field("maxmemory_policy") ?? "unknown";
    const problems = [
      ...(maxmemory > 0 ? [] : ["has no maxmemory (it grows until the machine runs out)"]),
      ...(policy === "noeviction" ? [] : [`evicts keys at maxmemory (maxmemory-policy ${policy}), so it may drop sign-ins, cache generations and handles`]),
    ];
    return problems.length
      ? `store ${this.where} ${problems.join(", and ")}: set maxmemory above metatools.outputs.totalBytes plus room for the cache, and maxmemory-policy noeviction (docs/deploy.md)`
      : undefined;
  }
}
