/**
 * Lua scripts that keep spend and rate-limit counters in Redis, so that replicas sharing it
 * enforce one limit: each runs atomically on the server (no other command interleaves).
 *
 * Keys, per metered key of a request, in order: when it has a budget, the budget hash (fields
 * `spent`, `reserved`, `r:<reservation id>`; a rolling budget keeps its spend per bucket,
 * `b:<bucket start ms>`, and counts the buckets from the plan's `cut` on) and the sorted set of
 * its reservations by expiry;
 * then, per window, the request counter and the token counter. ARGV[1] is the plan as JSON
 * (`spend/redis-counters.ts`). Amounts are integers in 1e-10 USD.
 *
 * The epoch marker (`SPEND_EPOCH_KEY`) is set once the counters were seeded from the store: a
 * Redis that lost its data (restarted without persistence, flushed) has none, and the reserve
 * script then admits nothing and says so, so that no request is metered against counters that
 * forgot what was spent.
 */

/** Set once Redis holds the spend the store records; its value names the seeding. */
export const SPEND_EPOCH_KEY = "gw:spend:epoch";
/** Held (SET NX, with an expiry) by the one replica that seeds an empty Redis from the store. */
export const SPEND_SEEDING_LOCK_KEY = "gw:spend:seeding";

/**
 * KEYS[1] is the epoch marker: without it nothing is admitted and the reply is `unseeded`.
 * Drops expired reservations, checks every key, and only if none refuses reserves and counts on all.
 */
/** Sums a rolling budget's buckets from `cut` on and deletes the older ones (Lua, shared by the scripts). */
const WINDOW_SUM = `
local function windowSum(h, cut)
  local all = redis.call('HGETALL', h)
  local s = 0
  for idx = 1, #all, 2 do
    local f = all[idx]
    if string.sub(f, 1, 2) == 'b:' then
      if tonumber(string.sub(f, 3)) < cut then redis.call('HDEL', h, f) else s = s + tonumber(all[idx + 1]) end
    end
  end
  return s
end
`;

export const RESERVE_SCRIPT = `${WINDOW_SUM}
if not redis.call('GET', KEYS[1]) then return cjson.encode({ unseeded = true }) end
local plan = cjson.decode(ARGV[1])
local counts = {}
local refusal = nil
local k = 2
for i, key in ipairs(plan.keys) do
  local count = { s = 0, r = 0, w = {} }
  if key.b then
    local h, z = KEYS[k], KEYS[k + 1]
    k = k + 2
    local expired = redis.call('ZRANGEBYSCORE', z, '-inf', plan.now)
    for _, id in ipairs(expired) do
      local units = redis.call('HGET', h, 'r:' .. id)
      if units then
        redis.call('HINCRBY', h, 'reserved', -tonumber(units))
        redis.call('HDEL', h, 'r:' .. id)
      end
      redis.call('ZREM', z, id)
    end
    if key.b.cut then count.s = windowSum(h, key.b.cut) else count.s = tonumber(redis.call('HGET', h, 'spent') or '0') end
    count.r = tonumber(redis.call('HGET', h, 'reserved') or '0')
    if refusal == nil and count.s + count.r >= key.b.limit then refusal = { i - 1, 'budget', -1 } end
  end
  for j, w in ipairs(key.w) do
    local requests = tonumber(redis.call('GET', KEYS[k]) or '0')
    local tokens = tonumber(redis.call('GET', KEYS[k + 1]) or '0')
    k = k + 2
    count.w[j] = { requests, tokens }
    if refusal == nil and w.rl > 0 and requests >= w.rl then refusal = { i - 1, 'requests', j - 1 } end
    if refusal == nil and w.tl > 0 and tokens >= w.tl then refusal = { i - 1, 'tokens', j - 1 } end
  end
  counts[i] = count
end
if refusal then return cjson.encode({ refusal = refusal, counts = counts }) end
k = 2
for i, key in ipairs(plan.keys) do
  if key.b then
    local h, z = KEYS[k], KEYS[k + 1]
    k = k + 2
    if key.b.units > 0 then
      redis.call('HINCRBY', h, 'reserved', key.b.units)
      redis.call('HSET', h, 'r:' .. plan.id, key.b.units)
      redis.call('ZADD', z, plan.exp, plan.id)
      counts[i].r = counts[i].r + key.b.units
    end
    if key.b.ttl > 0 then
      redis.call('PEXPIRE', h, key.b.ttl)
      redis.call('PEXPIRE', z, key.b.ttl)
    end
  end
  for j, w in ipairs(key.w) do
    if w.rl > 0 then
      counts[i].w[j][1] = redis.call('INCR', KEYS[k])
      redis.call('PEXPIRE', KEYS[k], w.ttl)
    end
    k = k + 2
  end
end
return cjson.encode({ counts = counts })
`;

/**
 * Releases the request's reservation (if it has not expired meanwhile), adds what it used to
 * spend and to the token windows; returns spend before and after per key with a budget.
 */
export const SETTLE_SCRIPT = `${WINDOW_SUM}
local plan = cjson.decode(ARGV[1])
local out = {}
local k = 1
for i, key in ipairs(plan.keys) do
  out[i] = false
  if key.b then
    local h, z = KEYS[k], KEYS[k + 1]
    k = k + 2
    local units = redis.call('HGET', h, 'r:' .. plan.id)
    if units then
      redis.call('HINCRBY', h, 'reserved', -tonumber(units))
      redis.call('HDEL', h, 'r:' .. plan.id)
    end
    redis.call('ZREM', z, plan.id)
    local before = 0
    local after = 0
    if key.b.cut then
      before = windowSum(h, key.b.cut)
      after = before
      if key.b.used > 0 then
        redis.call('HINCRBY', h, 'b:' .. key.b.bucket, key.b.used)
        after = before + key.b.used
      end
    else
      before = tonumber(redis.call('HGET', h, 'spent') or '0')
      after = before
      if key.b.used > 0 then after = redis.call('HINCRBY', h, 'spent', key.b.used) end
    end
    if key.b.ttl > 0 then redis.call('PEXPIRE', h, key.b.ttl) end
    out[i] = { before, after }
  end
  for _, w in ipairs(key.w) do
    if w.tl > 0 and w.used > 0 then
      redis.call('INCRBY', KEYS[k + 1], w.used)
      redis.call('PEXPIRE', KEYS[k + 1], w.ttl)
    end
    k = k + 2
  end
end
return cjson.encode(out)
`;

/**
 * Raises counters to at least the given values, never lowers one: ARGV[1] is a JSON list of
 * `{ f, v, ttl }` per key of KEYS, `f` the hash field (a budget's `spent`) or absent for a
 * plain counter (a window), `ttl` in ms (0: none). Seeding from the store and every replica's
 * last known values meet here, in any order, with the same result.
 */
export const RAISE_SCRIPT = `
local entries = cjson.decode(ARGV[1])
for i, entry in ipairs(entries) do
  local key = KEYS[i]
  local value = tonumber(entry.v)
  if entry.f then
    if value > tonumber(redis.call('HGET', key, entry.f) or '0') then redis.call('HSET', key, entry.f, value) end
  else
    if value > tonumber(redis.call('GET', key) or '0') then redis.call('SET', key, value) end
  end
  if entry.ttl > 0 then redis.call('PEXPIRE', key, entry.ttl) end
end
return 1
`;

/** Releases the seeding lock only if this replica still holds it. */
export const UNLOCK_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;
