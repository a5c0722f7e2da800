-- Weir cluster mode: several limits of one resource decided at once, all or nothing, atomic on the
-- Redis server. Each limit is decided as sliding-window.lua or exact-window.lua decides it alone
-- (see there); here nothing is written unless every limit fits.
--
-- KEYS[i]  limit i's key: a hash of buckets (kind "w") or a sorted-set log (kind "x"); all keys
--          carry the resource as hash tag, so they hash to one Redis Cluster slot
-- ARGV[1]  permits this call asks for
-- ARGV[2 + 4(i-1) .. 5 + 4(i-1)]  limit i: kind ("w" | "x"), limit, window in ms, buckets ("w" only)
-- Returns  {admitted (1|0), permits still free (the least over the limits when admitted; the
--           first refusing limit's when refused), retry-after in ms (0 when admitted; when refused,
--           the longest over the refusing limits, as the call fits only when all of them do),
--           Redis time decided at in us (the first exact limit's, which its members carry),
--           index from 0 of the first limit that refused (0 when admitted)}
--
-- Phase one reads every limit and drops what has left its window (buckets, members: dropping them
-- changes no decision, so it is done whether or not the call is admitted), and re-anchors a limit
-- whose stored times lie ahead of Redis' clock (the clock stepped back: see the two scripts);
-- phase two, only when every limit fits, counts the permits in every key and sets its expiry.
local permits = tonumber(ARGV[1])
local time = redis.call('TIME')
local clock = tonumber(time[1]) * 1000000 + tonumber(time[2])
local function int(n)
  return string.format('%.0f', n)
end

-- A stored number, or nil when absent, not a number, or not finite.
local function number(s)
  local n = tonumber(s)
  if n and n == n and n > -math.huge and n < math.huge then
    return n
  end
  return nil
end

local function window(key, limit, windowMs, buckets)
  local now = math.floor(clock / 1000)
  local width = windowMs / buckets
  local current = math.floor(now / width)
  local oldest = current - buckets + 1
  local fields = redis.call('HGETALL', key)
  -- Buckets ahead of the current one: the clock stepped back; all move back together, the newest
  -- to the current bucket (sliding-window.lua).
  local back = 0
  for i = 1, #fields, 2 do
    local bucket = number(fields[i])
    if bucket and bucket - current > back then
      back = bucket - current
    end
  end
  local used, counts, drop, rewrite = 0, {}, {}, {}
  for i = 1, #fields, 2 do
    local bucket = number(fields[i])
    if bucket then
      local count = math.max(0, math.ceil(number(fields[i + 1]) or limit))
      local to = bucket - back
      if to ~= bucket or to < oldest or count == 0 or int(count) ~= fields[i + 1] then
        drop[#drop + 1] = fields[i]
      end
      if to >= oldest and count > 0 then
        used = used + count
        counts[to] = (counts[to] or 0) + count
        if to ~= bucket or int(count) ~= fields[i + 1] then
          rewrite[to] = true
        end
      end
    end
  end
  for i = 1, #drop, 500 do
    redis.call('HDEL', key, unpack(drop, i, math.min(i + 499, #drop)))
  end
  for bucket = oldest, current do
    if rewrite[bucket] then
      redis.call('HSET', key, int(bucket), int(counts[bucket]))
    end
  end
  if back > 0 then
    redis.call('PEXPIRE', key, int(windowMs + width))
  end
  local d = {stamp = clock}
  if used + permits <= limit then
    d.fits = true
    d.free = math.floor(limit - used - permits)
    d.commit = function()
      redis.call('HINCRBY', key, int(current), permits)
      redis.call('PEXPIRE', key, int(windowMs + width))
    end
    return d
  end
  d.free = math.max(0, math.floor(limit - used))
  d.retry = windowMs
  local excess = used + permits - limit
  local leaving = 0
  for bucket = oldest, current do
    local count = counts[bucket]
    if count then
      leaving = leaving + count
      if leaving >= excess then
        d.retry = (bucket + buckets) * width - now
        break
      end
    end
  end
  return d
end

local function exact(key, limit, windowMs)
  local span = windowMs * 1000
  local now = clock
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  if #newest == 2 and tonumber(newest[2]) > now then
    local lag = tonumber(newest[2]) - clock
    if lag <= span / 100 then
      now = tonumber(newest[2])
    else
      -- The clock stepped back: every member moves back by the lag (exact-window.lua).
      redis.call('ZREMRANGEBYSCORE', key, '-inf', int(tonumber(newest[2]) - span))
      redis.call('ZREMRANGEBYRANK', key, 0, -10001)
      local members = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
      redis.call('DEL', key)
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
          redis.call('ZADD', key, unpack(args))
          args = {}
        end
      end
      redis.call('PEXPIRE', key, int(windowMs))
    end
  end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', int(now - span))
  local size = redis.call('ZCARD', key)
  local d = {stamp = now}
  if permits <= limit and size + permits <= limit then
    d.fits = true
    d.free = limit - size - permits
    d.commit = function()
      local same = redis.call('ZCOUNT', key, int(now), int(now))
      local args = {}
      for i = 0, permits - 1 do -- at most 1000 members per ZADD, as in exact-window.lua
        args[#args + 1] = int(now)
        args[#args + 1] = int(now) .. ':' .. int(same + i)
        if #args == 2000 or i == permits - 1 then
          redis.call('ZADD', key, unpack(args))
          args = {}
        end
      end
      redis.call('PEXPIRE', key, int(windowMs + math.ceil((now - clock) / 1000)))
    end
    return d
  end
  d.free = math.max(0, limit - size)
  if permits > limit then
    d.retry = windowMs
  else
    local rank = size + permits - limit - 1
    local blocking = redis.call('ZRANGE', key, rank, rank, 'WITHSCORES')
    d.retry = math.max(1, math.ceil((tonumber(blocking[2]) + span - now) / 1000))
  end
  return d
end

local decisions = {}
local refusedBy = -1
local retry = 0
local stamp = nil
for i = 1, #KEYS do
  local at = 2 + 4 * (i - 1)
  local kind, limit, windowMs = ARGV[at], tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
  local d
  if kind == 'x' then
    d = exact(KEYS[i], limit, windowMs)
    stamp = stamp or d.stamp
  else
    d = window(KEYS[i], limit, windowMs, tonumber(ARGV[at + 3]))
  end
  decisions[i] = d
  if not d.fits then
    if refusedBy < 0 then
      refusedBy = i - 1
    end
    retry = math.max(retry, d.retry)
  end
end
stamp = stamp or clock

if refusedBy >= 0 then
  return {0, decisions[refusedBy + 1].free, retry, stamp, refusedBy}
end
local free = nil
for i = 1, #KEYS do
  decisions[i].commit()
  free = free and math.min(free, decisions[i].free) or decisions[i].free
end
return {1, free, 0, stamp, 0}
