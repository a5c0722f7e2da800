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
-- at an earlier time). So when TIME is behind the newest member by up to a hundredth of the window
-- (a promoted replica a little behind the old master), the script decides at the newest member's
-- time. Behind by more, the clock stepped back (an NTP step, a replica far behind): standing
-- still would count every member of the last window for as long as the step and refuse all of
-- that time. So the script re-anchors: it moves every member back by the lag (newest - TIME),
-- keeping their spacing, and decides at TIME. No member moves back by more than the step, so each
-- stays counted at least as long, measured on a steady clock, as it would have without the step:
-- any window-long span of a steady clock holds at most the limit across any number of steps back.
-- What a step back costs is refusals: the members counted at the step leave at most a window
-- after the first decision following it. A step forward of d lets members leave up to d early: a
-- window-long span holding it may see up to twice the limit. Members are "<time>:<n>", n counting
-- the members of that same time: unique, since members of one time are always trimmed together
-- (moved members are renamed after their new time). The key expires one window after its newest
-- member, when every member would have been trimmed anyway; an idle rule leaves nothing behind.
local limit = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local window = windowMs * 1000
local permits = tonumber(ARGV[3])

local function int(n)
  return string.format('%.0f', n)
end

local time = redis.call('TIME')
local clock = tonumber(time[1]) * 1000000 + tonumber(time[2])
local now = clock
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if #newest == 2 and tonumber(newest[2]) > now then
  local lag = tonumber(newest[2]) - clock
  if lag <= window / 100 then
    now = tonumber(newest[2])
  else
    -- Re-anchor: what a window at the newest member holds, moved back by the lag, at most the
    -- newest 10000 (the most any rule counts: fewer decide alike). Not finite: at TIME.
    redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', int(tonumber(newest[2]) - window))
    redis.call('ZREMRANGEBYRANK', KEYS[1], 0, -10001)
    local members = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
    redis.call('DEL', KEYS[1])
    local args, previous, n = {}, nil, 0
    for i = 2, #members, 2 do
      local moved = tonumber(members[i]) - lag
      if not (moved > -math.huge and moved < math.huge) then
        moved = clock
      end
      local stamp = int(math.min(moved, clock))
      if stamp == previous then
        n = n + 1
      else
        previous, n = stamp, 0
      end
      args[#args + 1] = stamp
      args[#args + 1] = stamp .. ':' .. n
      if #args == 2000 or i == #members then
        redis.call('ZADD', KEYS[1], unpack(args))
        args = {}
      end
    end
    redis.call('PEXPIRE', KEYS[1], windowMs)
  end
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
