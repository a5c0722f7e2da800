-- Weir fleet traffic: one instance's reading of the last second, published in one step.
--
-- KEYS[1]  this instance's hash (field = resource, value = its reading)
-- KEYS[2]  the sorted set of publishing instances (member = id, score = Redis time of its last
--          reading, ms)
-- ARGV[1]  this instance's id
-- ARGV[2]  how long a reading counts, in ms: the hash expires then, and older ids leave the set
-- ARGV[3]  the most ids the set keeps (the newest)
-- ARGV[4..] field, value, field, value, ...: this second's reading, at most the publisher's cap
-- Returns  the number of resources published
--
-- The hash is replaced whole (DEL, then HSET), so a resource the instance no longer publishes
-- leaves it; the set is trimmed to the live ids and to ARGV[3], so neither grows with dead
-- instances.
local ttl = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('DEL', KEYS[1])
local fields = #ARGV - 3
if fields >= 2 then
  redis.call('HSET', KEYS[1], unpack(ARGV, 4, 3 + fields - fields % 2))
  redis.call('PEXPIRE', KEYS[1], ttl)
end
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', string.format('(%.0f', now - ttl))
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -1 - tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[2], ttl)
return math.floor(fields / 2)
