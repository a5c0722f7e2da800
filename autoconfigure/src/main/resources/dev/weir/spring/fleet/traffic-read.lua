-- Weir fleet traffic: the readings of the live instances, read in one bounded step (the caller
-- sums them: parsing numbers in Lua costs Redis about ten times the reading itself).
--
-- KEYS[1]  the sorted set of publishing instances (member = id, score = Redis time of its last
--          reading, ms)
-- ARGV[1]  how long a reading counts, in ms
-- ARGV[2]  the most instances read
-- ARGV[3]  the prefix of the instance hashes, hash tag included ("weir:{traffic}:i:")
-- ARGV[4]  the most fields a hash may have: a longer one is skipped unread
-- ARGV[5]  the most fields read in all: the instances after it are skipped unread
-- ARGV[6]  the longest resource name, in bytes; ARGV[7] the longest value: longer fields are left out
-- Returns  {instances read, instances skipped, name, value, name, value, ...}
--
-- Anyone with access to Redis can write these keys, so nothing here trusts them: a hash over the
-- cap is skipped by its HLEN alone (never read), so is a key that is no hash, and the fields read
-- in all are bounded, so the work and the answer are bounded whatever the keys hold.
local ttl = tonumber(ARGV[1])
local maxFields = tonumber(ARGV[4])
local budget = tonumber(ARGV[5])
local maxName = tonumber(ARGV[6])
local maxValue = tonumber(ARGV[7])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], string.format('%.0f', now - ttl), '+inf', 'LIMIT', 0,
  tonumber(ARGV[2]))
local out = {0, 0}
local read = 0
local skipped = 0
for _, id in ipairs(ids) do
  local key = ARGV[3] .. id
  local ok, length = pcall(redis.call, 'HLEN', key)
  if not ok or length > maxFields or length > budget then
    skipped = skipped + 1
  else
    local got, flat = pcall(redis.call, 'HGETALL', key)
    if got then
      read = read + 1
      budget = budget - length
      for i = 1, #flat - 1, 2 do
        local name = flat[i]
        local value = flat[i + 1]
        if #name > 0 and #name <= maxName and #value <= maxValue then
          out[#out + 1] = name
          out[#out + 1] = value
        end
      end
    else
      skipped = skipped + 1
    end
  end
end
out[1] = read
out[2] = skipped
return out
