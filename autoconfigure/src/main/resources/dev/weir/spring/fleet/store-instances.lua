-- Weir rules store: the live instances, read in one bounded step.
--
-- KEYS[1]  the sorted set of instances (member = id, score = Redis time of its last heartbeat, ms)
-- ARGV[1]  how long an instance counts as live after its last heartbeat, in ms
-- ARGV[2]  the most instances returned
-- ARGV[3]  the prefix of the instance hashes, hash tag included ("weir:{rules}:i:")
-- ARGV[4]  the most characters of each field returned
-- Returns  a flat list: for each live instance, its id, host, version, lastSeen and error, each
--          cut to ARGV[4] characters ('' when absent)
--
-- Only these five fields are read (HMGET), whatever else a hash holds, and each is cut, so the
-- answer is bounded however the keys were written.
local ttl = tonumber(ARGV[1])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local cut = tonumber(ARGV[4])
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], string.format('%.0f', now - ttl), '+inf', 'LIMIT', 0,
  tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  local ok, fields = pcall(redis.call, 'HMGET', ARGV[3] .. id, 'id', 'host', 'version', 'lastSeen', 'error')
  if ok then
    table.insert(out, string.sub(id, 1, cut))
    for i = 2, 5 do
      local value = fields[i]
      if value then
        table.insert(out, string.sub(value, 1, cut))
      else
        table.insert(out, '')
      end
    end
  end
end
return out
