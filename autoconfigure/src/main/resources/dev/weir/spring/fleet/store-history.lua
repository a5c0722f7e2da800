-- Weir rules store: the history, read in one bounded step.
--
-- KEYS[1]  the history: a list of versions, newest first
-- ARGV[1]  the most versions returned
-- ARGV[2]  the prefix of the per-version keys, hash tag included ("weir:{rules}:")
-- ARGV[3]  the most bytes of each summary returned
-- Returns  a flat list: for each version, the version and its summary ('' when absent), the
--          summary cut to ARGV[3] bytes
local cut = tonumber(ARGV[3])
local versions = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
local out = {}
for _, v in ipairs(versions) do
  local version = string.sub(v, 1, 20)
  local ok, summary = pcall(redis.call, 'GETRANGE', ARGV[2] .. 's:' .. version, 0, cut)
  table.insert(out, version)
  if ok and summary then
    table.insert(out, summary)
  else
    table.insert(out, '')
  end
end
return out
