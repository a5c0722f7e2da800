-- Weir cluster mode: one decision for one key of a param-flow rule, atomic on the Redis server.
--
-- KEYS[1]  the key's state: its theoretical arrival time (TAT), in us of Redis time, as a string
-- ARGV[1]  emission interval in us: duration / count (a decimal number)
-- ARGV[2]  capacity in permits: count + burst
-- ARGV[3]  permits this call asks for
-- Returns  {admitted (1|0), permits still free after this call, retry-after in ms (0 when admitted),
--           the Redis time decided at, in us}
--
-- The generic cell rate algorithm, the same as the local per-key limiter: a token bucket of
-- capacity permits refilled at one per emission interval, kept as one number. Taking p permits
-- moves TAT to max(TAT, now) + p * emission; the call is admitted when that stays within capacity *
-- emission of now. So the admissions in any span [a, b] number at most (b - a) / emission +
-- capacity. One number per key, and the key expires when TAT is reached (the bucket is full again,
-- which is what an absent key means): memory is bounded by the keys active in the last
-- capacity * emission, never by the keys ever seen. A refusal writes nothing (but a re-anchor).
-- TAT is stored rounded up to the microsecond, which errs on the side of refusing.
--
-- Time is Redis' own (TIME). Should it step back by d (an NTP step, a failover to a replica whose
-- clock is behind), TAT lies d further ahead: the bucket holds d / emission fewer permits, which
-- refuses sooner, never later. A TAT further ahead than the horizon (capacity * emission) cannot
-- come from admissions, only from a step back (beyond a billionth of the horizon and 1 us, for
-- the rounding of doubles): the script re-anchors it at the horizon (an empty
-- bucket, refilling from now) and writes it so. Otherwise the key would refuse everything for as
-- long as the step. The bucket a step back leaves is never fuller than the one a steady clock would
-- have, so the bound holds on a steady clock across any number of steps back; what one costs is at
-- most a full bucket's refill (the horizon) of refusals. A step forward of d refills d / emission
-- permits at once, at most capacity: a span holding it may admit up to capacity more. A stored TAT
-- that is not a finite number counts as the horizon (an empty bucket).
local emission = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local permits = tonumber(ARGV[3])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local horizon = capacity * emission
local stored = redis.call('GET', KEYS[1])
local tat = now
if stored then
  local t = tonumber(stored)
  if not (t and t == t and t < math.huge) or t - now > horizon * (1 + 1e-9) + 1 then
    -- Re-anchored (1 us and a billionth of the horizon: a stored TAT's rounding, and the doubles').
    tat = now + horizon
    redis.call('SET', KEYS[1], string.format('%.0f', math.ceil(tat)), 'PX',
      string.format('%.0f', math.max(1, math.ceil(horizon / 1000))))
  else
    tat = math.max(now, t)
  end
end
local nextTat = tat + permits * emission

if nextTat - now <= horizon then
  local ahead = math.ceil(nextTat) - now
  redis.call('SET', KEYS[1], string.format('%.0f', math.ceil(nextTat)), 'PX',
    string.format('%.0f', math.max(1, math.ceil(ahead / 1000))))
  -- Free permits, from the unrounded TAT (1e-6 absorbs the binary rounding of a decimal emission).
  return {1, math.floor((horizon - (nextTat - now)) / emission + 1e-6), 0, now}
end
return {0, math.max(0, math.floor((horizon - (tat - now)) / emission + 1e-6)),
  math.max(1, math.ceil((nextTat - now - horizon) / 1000)), now}
