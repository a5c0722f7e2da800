-- Weir rules store: one heartbeat of an instance.
--
-- KEYS[1]  the instance's hash (id, host, version, lastSeen, error), which expires ARGV[5] ms
--          after its last heartbeat
-- KEYS[2]  the sorted set of instances: member = id, score = Redis time (ms) of its last heartbeat
-- ARGV[1..4] id, host, the version applied (-1: none), the error ('' for none)
-- ARGV[5]  how long an instance counts as live after its last heartbeat, in ms
--
-- Redis' clock (TIME) stamps the heartbeat, so instances on skewed hosts agree on who is live.
-- Only the fields named here are written: a hash someone filled with other fields keeps them, and
-- readers ask for these fields only.
local ttl = tonumber(ARGV[5])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local stamp = string.format('%.0f', now)
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'host', ARGV[2], 'version', ARGV[3], 'lastSeen', stamp,
  'error', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('ZADD', KEYS[2], stamp, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', string.format('%.0f', now - ttl))
redis.call('PEXPIRE', KEYS[2], ttl)
return now
