-- Weir cluster mode: one heartbeat of an instance, for the share fallback.
--
-- KEYS[1]  the sorted set of live instances: member = instance id, score = Redis time (ms) of its
--          last heartbeat
-- ARGV[1]  this instance's id
-- ARGV[2]  how long an instance counts as live after its last heartbeat, in ms
-- Returns  the number of live instances, this one included
--
-- Redis' own clock (TIME) stamps every heartbeat, so skewed hosts agree on who is live. Instances
-- silent for longer than ARGV[2] are dropped here; the key expires ARGV[2] after the last
-- heartbeat of any instance.
local ttl = tonumber(ARGV[2])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZADD', KEYS[1], string.format('%.0f', now), ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%.0f', now - ttl))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
