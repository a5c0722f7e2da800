-- Weir cluster mode: one sliding-window decision, atomic on the Redis server.
--
-- KEYS[1]  the rule's hash: one field per bucket, named by the bucket number, holding its count
-- ARGV[1]  limit per window (a decimal number)
-- ARGV[2]  window, in milliseconds (a multiple of ARGV[3])
-- ARGV[3]  buckets per window
-- ARGV[4]  permits this call asks for
-- Returns  {admitted (1|0), permits still free after this call, retry-after in ms (0 when admitted)}
--
-- Time is Redis' own (TIME), so instances on skewed hosts decide alike. Bucket b covers the
-- milliseconds [b * width, (b + 1) * width); the window is the current bucket and the buckets - 1
-- before it. Older fields are deleted here, and the key expires one window and one bucket after
-- its last write, so an idle rule leaves nothing behind. A bucket numbered after the current one
-- (the server clock stepped back, e.g. after a failover) still counts: better a call refused too
-- many than a burst let through.
local limit = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local buckets = tonumber(ARGV[3])
local permits = tonumber(ARGV[4])

local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local width = window / buckets
local current = math.floor(now / width)
local oldest = current - buckets + 1

local fields = redis.call('HGETALL', KEYS[1])
local used = 0
local counts = {}
local stale = {}
for i = 1, #fields, 2 do
  local bucket = tonumber(fields[i])
  if bucket < oldest then
    stale[#stale + 1] = fields[i]
  else
    local count = tonumber(fields[i + 1])
    used = used + count
    counts[bucket] = count
  end
end
if #stale > 0 then
  redis.call('HDEL', KEYS[1], unpack(stale))
end

if used + permits <= limit then
  redis.call('HINCRBY', KEYS[1], current, permits)
  redis.call('PEXPIRE', KEYS[1], window + width)
  return {1, math.floor(limit - used - permits), 0}
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
      return {0, math.max(0, math.floor(limit - used)), (bucket + buckets) * width - now}
    end
  end
end
-- More permits than the limit, or counts from buckets ahead of the clock: no sooner than a window.
return {0, math.max(0, math.floor(limit - used)), window}
