/**
 * Lua scripts that keep runs' counts in Redis, so that replicas sharing it halt a run once, at
 * one figure (`runs/redis-run-counters.ts`). Each runs atomically on the server.
 *
 * KEYS: the run's hash (fields `start`, `req`, `tools`, `cost`, `halt`), the run's repeats (a hash
 * of request fingerprint to count), then one hash per velocity rule (fields `b:<bucket start ms>`,
 * cost in 1e-10 USD). A request without a run passes placeholder keys for the first two, never
 * written. ARGV[1] is the plan as JSON.
 */

/** Sums a velocity hash's buckets from `cut` on, deleting older ones. */
const BUCKET_SUM = `
local function bucketSum(h, cut)
  local all = redis.call('HGETALL', h)
  local s = 0
  for idx = 1, #all, 2 do
    local t = tonumber(string.sub(all[idx], 3))
    if t < cut then redis.call('HDEL', h, all[idx]) else s = s + tonumber(all[idx + 1]) end
  end
  return s
end
`;

/**
 * Checks a request (or tool call) against its run's limits and its velocity rules; a halt already
 * set answers as it is; a rule that trips sets the run's halt (when there is a run) and answers
 * it as fresh; otherwise the request is counted.
 */
export const RUN_ADMIT_SCRIPT = `${BUCKET_SUM}
local plan = cjson.decode(ARGV[1])
local run = KEYS[1]
if plan.run then
  local halted = redis.call('HGET', run, 'halt')
  if halted then return cjson.encode({ halted = cjson.decode(halted) }) end
end
local now = plan.now
local lim = plan.lim
local start = tonumber(redis.call('HGET', run, 'start') or '0')
if start == 0 then start = now end
local req = tonumber(redis.call('HGET', run, 'req') or '0')
local tools = tonumber(redis.call('HGET', run, 'tools') or '0')
local cost = tonumber(redis.call('HGET', run, 'cost') or '0')
local trip = nil
if plan.run then
  if lim.dur and now - start > lim.dur then trip = { rule = 'max_duration_seconds', value = now - start, limit = lim.dur, scope = 'run' } end
  if not trip and plan.kind == 'request' and lim.req and req + 1 > lim.req then trip = { rule = 'max_requests', value = req + 1, limit = lim.req, scope = 'run' } end
  if not trip and plan.kind == 'tool' and lim.tools and tools + 1 > lim.tools then trip = { rule = 'max_tool_calls', value = tools + 1, limit = lim.tools, scope = 'run' } end
  if not trip and lim.cost and cost >= lim.cost then trip = { rule = 'max_cost_usd', value = cost, limit = lim.cost, scope = 'run' } end
end
local rep = 0
if plan.run and plan.fp then
  rep = tonumber(redis.call('HGET', KEYS[2], plan.fp) or '0') + 1
  if not trip and lim.rep and rep > lim.rep then trip = { rule = 'repeat_limit', value = rep, limit = lim.rep, scope = 'run' } end
end
for i, v in ipairs(plan.vel) do
  local spent = bucketSum(KEYS[2 + i], v.cut)
  if not trip and spent >= v.cap then trip = { rule = 'max_cost_usd_per_minute', value = spent, limit = v.cap, scope = v.scope } end
end
if trip then
  trip.at = now
  if plan.run then
    redis.call('HSET', run, 'halt', cjson.encode(trip))
    redis.call('PEXPIRE', run, plan.ttl)
  end
  return cjson.encode({ tripped = trip })
end
if plan.run then
  redis.call('HSET', run, 'start', start)
  if plan.kind == 'request' then redis.call('HINCRBY', run, 'req', 1) else redis.call('HINCRBY', run, 'tools', 1) end
  redis.call('PEXPIRE', run, plan.ttl)
  if plan.fp then
    redis.call('HINCRBY', KEYS[2], plan.fp, 1)
    redis.call('PEXPIRE', KEYS[2], plan.ttl)
  end
end
return cjson.encode({ ok = true })
`;

/** Adds a settled cost to the run (when there is one) and to each velocity hash's current bucket. */
export const RUN_SETTLE_SCRIPT = `
local plan = cjson.decode(ARGV[1])
if plan.run and plan.units > 0 and redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'cost', plan.units)
end
for i = 2, #KEYS do
  if plan.units > 0 then
    redis.call('HINCRBY', KEYS[i], 'b:' .. plan.bucket, plan.units)
    redis.call('PEXPIRE', KEYS[i], plan.vttl)
  end
end
return 1
`;
