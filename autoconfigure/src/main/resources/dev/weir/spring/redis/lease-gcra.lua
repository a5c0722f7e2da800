-- Weir cluster mode with leases (weir.cluster.lease): one lease of a param-flow key's permits, or a
-- give-back, atomic on the Redis server. The key's state is gcra.lua's (one number, the theoretical
-- arrival time), so instances that lease and instances that ask per call share it.
--
-- KEYS[1]  the key's state: its theoretical arrival time (TAT), in us of Redis time
-- KEYS[2]  lease: the new lease's receipt key; give-back: the receipt key of the lease given back
-- KEYS[3]  lease only, optional: the receipt key of a lease this request settles
-- ARGV[1]  'l' lease, 'b' give back
-- ARGV[2]  emission interval in us: duration / count (a decimal number)
-- ARGV[3]  capacity in permits: count + burst
-- ARGV[4]  permits wanted        ARGV[5]  fewest worth granting
-- ARGV[6]  validity, in us       ARGV[7]  receipt lifetime, in ms
-- ARGV[8]  permits given back (of KEYS[2] for 'b', of KEYS[3] for 'l')
-- Returns  'l': {refused, granted, validity us, free after, retry-after ms, time us, -1}
--          'b': {permits taken out of the state}
--
-- A grant of n permits moves TAT as n calls at once would (gcra.lua): n <= the free permits. Its
-- permits are spent in [g, g + v], so the spends in any span [a, b] come from grants in [a - v, b]
-- and number at most (b - a + v) / emission + capacity: per duration, count * (1 + v / duration) +
-- count + burst (the capacity, as without leases). Clock steps are met as in gcra.lua (see there):
-- a TAT further ahead than the horizon is re-anchored at it, an empty bucket refilling from now; a
-- step back costs at most the horizon of refusals, a step forward refills at most the capacity at
-- once. A give-back moves TAT back by the unspent permits, once per lease (its receipt is deleted);
-- a receipt that expired or a state that was flushed or expired leaves nothing to move back.
local op = ARGV[1]
local emission = tonumber(ARGV[2])
local capacity = tonumber(ARGV[3])

local function int(n)
  return string.format('%.0f', n)
end

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local horizon = capacity * emission

-- The stored TAT, re-anchored as gcra.lua does when it lies further ahead than the horizon (the
-- clock stepped back) or is not a finite number: an empty bucket, refilling from now.
local function load()
  local stored = redis.call('GET', KEYS[1])
  if not stored then
    return nil
  end
  local t = tonumber(stored)
  if not (t and t == t and t < math.huge) or t - now > horizon * (1 + 1e-9) + 1 then
    t = now + horizon
    redis.call('SET', KEYS[1], int(math.ceil(t)), 'PX', int(math.max(1, math.ceil(horizon / 1000))))
  end
  return t
end

local function giveBack(receipt, unused)
  local r = redis.call('GET', receipt)
  if not r or unused <= 0 then
    return 0
  end
  redis.call('DEL', receipt)
  local back = math.min(unused, tonumber(r) or 0)
  local stored = load()
  if not stored or back <= 0 then
    return 0
  end
  local tat = stored - back * emission
  if tat <= now then
    redis.call('DEL', KEYS[1])
  else
    redis.call('SET', KEYS[1], int(math.ceil(tat)), 'PX', int(math.max(1, math.ceil((tat - now) / 1000))))
  end
  return back
end

if op == 'b' then
  return {giveBack(KEYS[2], tonumber(ARGV[8]))}
end
if #KEYS >= 3 then
  giveBack(KEYS[3], tonumber(ARGV[8]))
end

local wanted = tonumber(ARGV[4])
local minimum = tonumber(ARGV[5])
local valid = tonumber(ARGV[6])
local tat = math.max(now, load() or now)
local free = math.max(0, math.floor((horizon - (tat - now)) / emission + 1e-6))
if minimum > capacity or free < minimum then
  local retry = math.max(1, math.ceil((tat + minimum * emission - now - horizon) / 1000))
  return {1, 0, 0, free, retry, now, -1}
end
local n = math.min(wanted, free)
local nextTat = tat + n * emission
redis.call('SET', KEYS[1], int(math.ceil(nextTat)), 'PX', int(math.max(1, math.ceil((nextTat - now) / 1000))))
redis.call('SET', KEYS[2], int(n), 'PX', ARGV[7])
return {0, n, valid, free - n, 0, now, -1}
