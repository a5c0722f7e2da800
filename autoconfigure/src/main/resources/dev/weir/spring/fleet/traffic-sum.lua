-- Weir fleet traffic: the readings of the live instances, summed per resource, in one bounded step.
--
-- KEYS[1]  the sorted set of publishing instances (member = id, score = Redis time of its last
--          reading, ms)
-- ARGV[1]  how long a reading counts, in ms
-- ARGV[2]  the most instances summed
-- ARGV[3]  the prefix of the instance hashes, hash tag included ("weir:{traffic}:i:")
-- ARGV[4]  the most fields a hash may have: a longer one is skipped unread
-- ARGV[5]  the most resources summed (the first seen)
-- ARGV[6]  the longest resource name, in bytes: a longer field is skipped
-- Returns  {instances summed, instances skipped, name, n1, ..., n9, name, n1, ..., n9, ...} where
--          n1..n9 are the summed numbers of a reading, as decimal strings
--
-- Anyone with access to Redis can write these keys, so nothing here trusts them: a hash over the
-- cap is skipped by its HLEN alone (never read), a value is taken only when it is exactly nine
-- decimal numbers of at most 15 digits each, a key that is no hash is skipped, and the answer holds
-- at most ARGV[5] resources. The work is at most ARGV[2] * ARGV[4] fields. Sums are Lua numbers
-- (doubles): exact below 2^53 (about 9 * 10^15, centuries of traffic), approximate above, never
-- an error.
local ttl = tonumber(ARGV[1])
local maxInstances = tonumber(ARGV[2])
local maxFields = tonumber(ARGV[4])
local maxResources = tonumber(ARGV[5])
local maxName = tonumber(ARGV[6])
local READING = '^(%d+) (%d+) (%d+) (%d+) (%d+) (%d+) (%d+) (%d+) (%d+)$'
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], string.format('%.0f', now - ttl), '+inf', 'LIMIT', 0,
  maxInstances)
local sums = {}
local order = {}
local summed = 0
local skipped = 0
for _, id in ipairs(ids) do
  local key = ARGV[3] .. id
  local ok, length = pcall(redis.call, 'HLEN', key)
  if not ok or length > maxFields then
    skipped = skipped + 1
  elseif length > 0 then
    local read, flat = pcall(redis.call, 'HGETALL', key)
    if read then
      summed = summed + 1
      for i = 1, #flat - 1, 2 do
        local name = flat[i]
        local value = flat[i + 1]
        if #name > 0 and #name <= maxName and #value <= 160 then
          local numbers = {string.match(value, READING)}
          for k = 1, #numbers do
            if #numbers[k] > 15 then
              numbers = nil
              break
            end
            numbers[k] = tonumber(numbers[k])
          end
          if numbers and #numbers == 9 then
            local sum = sums[name]
            if sum == nil and #order < maxResources then
              sum = {0, 0, 0, 0, 0, 0, 0, 0, 0}
              sums[name] = sum
              order[#order + 1] = name
            end
            if sum then
              for k = 1, 9 do
                sum[k] = sum[k] + numbers[k]
              end
            end
          end
        end
      end
    else
      skipped = skipped + 1
    end
  else
    summed = summed + 1
  end
end
local out = {tostring(summed), tostring(skipped)}
for _, name in ipairs(order) do
  out[#out + 1] = name
  for k = 1, 9 do
    out[#out + 1] = string.format('%.0f', sums[name][k])
  end
end
return out
