-- Weir rules store: one write, a compare-and-set on the version.
--
-- KEYS[1]  the current version (a decimal string; absent = the store is empty)
-- KEYS[2]  the history: a list of versions, newest first
-- ARGV[1]  the version the writer expects to be current (0 = empty)
-- ARGV[2]  the floor: the new version is above it even when the store is empty (the highest
--          version the writer knows of, so that versions never repeat after a FLUSHALL)
-- ARGV[3]  the document of the new version (JSON)
-- ARGV[4]  its summary (JSON: time, author, what changed)
-- ARGV[5]  how many versions the history keeps (>= 1)
-- ARGV[6]  the prefix of the per-version keys, hash tag included ("weir:{rules}:")
-- ARGV[7]  the channel told of each new version
-- Returns  {1, new version} when written; {0, current version} when the current version is not
--          the expected one (nothing written); {-1, 0} when the version key holds no number.
--
-- All keys share the hash tag of ARGV[6], so they live on one Redis Cluster slot; the per-version
-- keys are named from the version computed here, so they cannot be declared in KEYS beforehand.
-- Everything happens in one step: a reader sees the old version with its document, or the new one
-- with its document, never a version without its document.
local raw = redis.call('GET', KEYS[1])
local current = 0
if raw then
  current = tonumber(raw)
  if current == nil or current < 0 or current ~= math.floor(current) then
    return {-1, 0}
  end
end
if current ~= tonumber(ARGV[1]) then
  return {0, current}
end
local floor = tonumber(ARGV[2])
local next = current
if floor > next then
  next = floor
end
next = next + 1
local v = string.format('%d', next)
redis.call('SET', ARGV[6] .. 'v:' .. v, ARGV[3])
redis.call('SET', ARGV[6] .. 's:' .. v, ARGV[4])
redis.call('SET', KEYS[1], v)
redis.call('LPUSH', KEYS[2], v)
-- Trim the history, deleting the documents that leave it; at most 100 per write, so that a
-- history list someone filled by hand costs one write a bounded time.
local keep = tonumber(ARGV[5])
local gone = redis.call('LRANGE', KEYS[2], keep, keep + 99)
for _, old in ipairs(gone) do
  if old ~= v then
    redis.call('DEL', ARGV[6] .. 'v:' .. old, ARGV[6] .. 's:' .. old)
  end
end
redis.call('LTRIM', KEYS[2], 0, keep - 1)
redis.call('PUBLISH', ARGV[7], v)
return {1, next}
