-- Weir cluster mode: one exact-window decision, atomic on the Redis server.
--
-- KEYS[1]  the rule's sorted set: one member per admitted permit, scored by its Redis time in us
-- ARGV[1]  limit: at most this many admissions in any window-long span (a whole number)
-- ARGV[2]  window, in milliseconds
-- ARGV[3]  permits this call asks for
-- Returns  {admitted (1|0), permits still free after this call, retry-after in ms (0 when admitted),
--           the time decided at (us; the score of this call's members when admitted)}
--
-- Two admissions at a <= b share a half-open span [t, t + window) exactly when b - a < window. So a
-- call at time now may be admitted when the members with now - score < window, plus its permits,
-- are at most the limit; members with now - score >= window can share no span with it or with any
-- later call, and are dropped first. Trimming, counting and adding happen in this one script, so no
-- other decision runs in between; a refusal adds nothing.
--
-- Time is Redis' own (TIME), never the caller's. Decisions must be made at non-decreasing times
-- for the trim to be sound (a member dropped at now could still share a span with a call decided
-- at an earlier time), so when TIME is behind the newest member (the clock stepped back, or a
-- promoted replica runs behind the old master) the script decides at the newest member's time.
-- Members are "<time>:<n>", n counting the members of that same time: unique, since members of one
-- time are always trimmed together. The key expires one window after its newest member, when every
-- member would have been trimmed anyway; an idle rule leaves nothing behind.
local limit = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local window = windowMs * 1000
local permits = tonumber(ARGV[3])

local time = redis.call('TIME')
local clock = tonumber(time[1]) * 1000000 + tonumber(time[2])
local now = clock
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if #newest == 2 and tonumber(newest[2]) > now then
  now = tonumber(newest[2])
end
local function int(n)
  return string.format('%.0f', n)
end

redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', int(now - window))
local size = redis.call('ZCARD', KEYS[1])

if permits <= limit and size + permits <= limit then
  local same = redis.call('ZCOUNT', KEYS[1], int(now), int(now))
  local stamp = int(now)
  -- At most 1000 members per ZADD: unpack() of more values than Lua's C stack holds (8000) fails,
  -- and a call may take up to limit (10000) permits.
  local args = {}
  for i = 0, permits - 1 do
    args[#args + 1] = stamp
    args[#args + 1] = stamp .. ':' .. int(same + i)
    if #args == 2000 or i == permits - 1 then
      redis.call('ZADD', KEYS[1], unpack(args))
      args = {}
    end
  end
  redis.call('PEXPIRE', KEYS[1], int(windowMs + math.ceil((now - clock) / 1000)))
  return {1, limit - size - permits, 0, now}
end

local free = math.max(0, limit - size)
if permits > limit then
  -- More permits than the limit never fit: no sooner than a window.
  return {0, free, windowMs, now}
end
-- Refused: the call fits once the (size + permits - limit)-th oldest member leaves, a window after
-- its time.
local rank = size + permits - limit - 1
local blocking = redis.call('ZRANGE', KEYS[1], rank, rank, 'WITHSCORES')
return {0, free, math.max(1, math.ceil((tonumber(blocking[2]) + window - now) / 1000)), now}
