-- Weir cluster mode: one sliding-window decision, atomic on the Redis server.
--
-- KEYS[1]  the rule's hash: one field per bucket, named by the bucket number, holding its count
-- ARGV[1]  limit per window (a decimal number)
-- ARGV[2]  window, in milliseconds (a multiple of ARGV[3])
-- ARGV[3]  buckets per window
-- ARGV[4]  permits this call asks for
-- Returns  {admitted (1|0), permits still free after this call, retry-after in ms (0 when admitted),
--           the Redis time decided at in us (settle.lua finds the call's bucket by it)}
--
-- Time is Redis' own (TIME), so instances on skewed hosts decide alike. Bucket b covers the
-- milliseconds [b * width, (b + 1) * width); the window is the current bucket and the buckets - 1
-- before it. Older fields are deleted here, and the key expires one window and one bucket after
-- its last write, so an idle rule leaves nothing behind.
--
-- A bucket numbered after the current one means the server clock stepped back (an NTP step, a
-- failover to a replica whose clock is behind). Counting it as it is would refuse for as long as
-- the step; so the script re-anchors: it moves every bucket back by as many buckets as the newest
-- is ahead, which puts the newest in the current bucket, keeps the spacing of the rest, and moves
-- none back by more than the step. So every permit stays counted at least as long, measured on a
-- steady clock, as it would have without the step: the buckets' bound holds across any number of
-- steps back, and what a step back costs is refusals: the permits counted at the step leave at most
-- a window after the first decision following it. A step forward of d lets counted permits leave up
-- to d early: a window holding it may see up to twice the limit. Stored counts are checked: one that
-- is not a number counts as the limit, a negative one as none (both are written back checked).
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local buckets = tonumber(ARGV[3])
local permits = tonumber(ARGV[4])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local stamp = tonumber(time[1]) * 1000000 + tonumber(time[2])
local width = window / buckets
local current = math.floor(now / width)
local oldest = current - buckets + 1

-- A stored number, or nil when absent, not a number, or not finite.
local function number(s)
  local n = tonumber(s)
  if n and n == n and n > -math.huge and n < math.huge then
    return n
  end
  return nil
end

local fields = redis.call('HGETALL', KEYS[1])
local back = 0
for i = 1, #fields, 2 do
  local bucket = number(fields[i])
  if bucket and bucket - current > back then
    back = bucket - current
  end
end
local used = 0
local counts = {}
local drop = {}
local rewrite = {}
for i = 1, #fields, 2 do
  local bucket = number(fields[i])
  if bucket then
    local count = math.max(0, math.ceil(number(fields[i + 1]) or limit))
    local to = bucket - back
    if to ~= bucket or to < oldest or count == 0 or string.format('%.0f', count) ~= fields[i + 1] then
      drop[#drop + 1] = fields[i]
    end
    if to >= oldest and count > 0 then
      used = used + count
      counts[to] = (counts[to] or 0) + count
      if to ~= bucket or string.format('%.0f', count) ~= fields[i + 1] then
        rewrite[to] = true
      end
    end
  end
end
for i = 1, #drop, 500 do
  redis.call('HDEL', KEYS[1], unpack(drop, i, math.min(i + 499, #drop)))
end
for bucket = oldest, current do
  if rewrite[bucket] then
    redis.call('HSET', KEYS[1], string.format('%.0f', bucket), string.format('%.0f', counts[bucket]))
  end
end
if back > 0 then
  redis.call('PEXPIRE', KEYS[1], window + width)
end

if used + permits <= limit then
  redis.call('HINCRBY', KEYS[1], current, permits)
  redis.call('PEXPIRE', KEYS[1], window + width)
  return {1, math.floor(limit - used - permits), 0, stamp}
end

-- Refused: the call fits once enough of the counted permits have left the window. Bucket b leaves
-- it when bucket b + buckets begins.
local excess = used + permits - limit
local leaving = 0
for bucket = oldest, current do
  local count = counts[bucket]
  if count then
    leaving = leaving + count
    if leaving >= excess then
      return {0, math.max(0, math.floor(limit - used)), (bucket + buckets) * width - now, stamp}
    end
  end
end
-- More permits than the limit: no sooner than a window.
return {0, math.max(0, math.floor(limit - used)), window, stamp}
