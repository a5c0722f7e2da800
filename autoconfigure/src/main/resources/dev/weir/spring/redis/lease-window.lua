-- Weir cluster mode with leases (weir.cluster.lease): one lease of a flow rule's permits, one
-- call's permits, or a give-back, atomic on the Redis server.
--
-- KEYS[1]  the rule's hash: field <k> = permits counted in bucket k, field t = last decision time (us),
--          field a = the last re-anchor's Redis time (us; absent before any), named by receipts
-- KEYS[2]  lease: the new lease's receipt key; give-back: the receipt key of the lease given back
-- KEYS[3]  the demands hash: field <instance> = "<permits per window>:<ms of Redis time>"
-- KEYS[4]  this instance's hash: its own leases, bucketed as in KEYS[1]
-- KEYS[5]  lease only, optional: the receipt key of a lease this request settles
-- ARGV[1]  'l' lease, 'c' one call's permits (no receipt), 'b' give back
-- ARGV[2]  limit: at most this many permits spent in any window-long span (a whole number)
-- ARGV[3]  window, in ms
-- ARGV[4]  bucket width, in us (a function of the window only: every call on a key must agree)
-- ARGV[5]  permits wanted        ARGV[6]  fewest worth granting (the waiting call's permits)
-- ARGV[7]  validity, in us       ARGV[8]  receipt lifetime, in ms
-- ARGV[9]  this instance's demand, permits per window (0 unknown)
-- ARGV[10] this instance's id    ARGV[11] how long a demand counts, in ms
-- ARGV[12] permits given back (of KEYS[2] for 'b', of KEYS[5] for 'l')
-- Returns  'l': {refused, granted, validity us, free after, retry-after ms, time us, fair share or -1}
--          'c': {admitted, free after, retry-after ms, time us}
--          'b': {permits taken out of the counts}
--
-- Why the counts are sound. A lease granted at Redis time g with validity v is spent by its
-- instance at times in [g, g + v] (the instance measures v from before it sent the request). So its
-- permits are counted by the END of the lease, e = g + v, in bucket k = floor(e / width), and stay
-- counted until bucket k lies wholly a window behind the present: (k + 1) * width <= now - window.
-- A grant (or a call, v = 0) at time now is admitted only when every permit still counted, plus its
-- own, fits the limit. Take any span [s, s + window) and the spends in it: each comes from a lease
-- whose end e >= its spend time >= s, granted at g <= s + window. At the moment the last of those
-- leases was granted, every earlier one had e >= s > g_last - window, so it was still counted; hence
-- all of them together, counted at that moment, fitted the limit. The permits in any window-long
-- span are thus at most the limit (up to the drift of the instances' clocks over v). What it costs:
-- a lease stays counted up to v + width longer than its spends need, so a saturated limit admits
-- about limit * window / (window + v + width) per window.
--
-- Give-backs take a lease's unspent permits out of its bucket, once (its receipt is deleted), and
-- only while the bucket is still counted: a receipt that expired, a bucket trimmed, or a key flushed
-- or lost in a restart leaves nothing to take out, which errs on the side of counting. A refusal
-- writes nothing but the instance's demand.
--
-- Fair shares. While the demands of the instances seen lately (ARGV[11]) add up to more than the
-- limit, each instance may hold at most the max-min fair share (the water level L: instances wanting
-- less than L get what they want, the others L each) in its own hash; so a busy instance cannot take
-- the permits of quieter ones, and none is starved up to its share.
--
-- Time is Redis' own (TIME), never the caller's. Decisions are made at non-decreasing times, so
-- that a trim is never undone: while TIME is behind the last decision's time t (field t) by less
-- than one bucket, the script decides at t. Behind by delta >= one bucket, the clock stepped back
-- (an NTP step, a failover to a replica whose clock is behind): standing still at t would count
-- every permit of the last window for as long as the step, and refuse all of that time. So the
-- script re-anchors: it moves every counted bucket back by m = floor(delta / width) buckets and
-- decides at t - m * width, within a bucket of TIME. Moved back by no more than the step, each
-- permit stays counted at least as long, measured on a steady clock, as it would have without the
-- step; so the bound above holds across any number of steps back, on a steady clock, and what a
-- step back costs is refusals: the permits counted at the step leave at most window + v + 2 width
-- after the first decision following it. A step forward of d lets counted permits leave up to d
-- early: a window-long span holding it may see up to twice the limit. Re-anchoring voids the
-- receipts of the leases granted before it (field a, the re-anchor's epoch, differs from theirs):
-- their bucket names moved, and a give-back could otherwise take another lease's permits out.
-- Stored fields are checked, not trusted: a count that is not a number counts as the limit, a
-- negative one as none; a bucket further ahead than a window past the present (no lease's end: v
-- is a hundredth of the window, at least 5 ms, and the window at least 10 ms) is counted a window
-- past the present. An instance's own hash (fair shares only) is folded likewise at its furthest
-- lease end, now + v: other instances' hashes are not this script's keys to move at a re-anchor.
-- A receipt or a demand that does not parse is ignored.
local op = ARGV[1]
local limit = tonumber(ARGV[2])
local window = tonumber(ARGV[3]) * 1000
local width = tonumber(ARGV[4])

local function int(n)
  return string.format('%.0f', n)
end

-- A stored number, or nil when absent, not a number, or not finite.
local function number(s)
  local n = tonumber(s)
  if n and n == n and n > -math.huge and n < math.huge then
    return n
  end
  return nil
end

local time = redis.call('TIME')
local clock = tonumber(time[1]) * 1000000 + tonumber(time[2])
local last = number(redis.call('HGET', KEYS[1], 't')) or 0
local now = math.max(clock, last)
local keep = math.floor((now - window) / width)

-- The counted permits of a bucketed hash after trimming it, and its buckets in order. Buckets move
-- back by `back` and none lies beyond `top`: moved fields are renamed, checked counts rewritten.
local function load(key, back, top)
  local fields = redis.call('HGETALL', key)
  local used, byBucket, drop, put = 0, {}, {}, {}
  for i = 1, #fields, 2 do
    local k = number(fields[i])
    if k then
      local c = number(fields[i + 1]) or limit
      c = math.max(0, math.ceil(c))
      local to = math.min(k - back, top)
      if to < keep or c == 0 or to ~= k or int(c) ~= fields[i + 1] then
        drop[#drop + 1] = fields[i]
      end
      if to >= keep and c > 0 then
        used = used + c
        byBucket[to] = (byBucket[to] or 0) + c
        if to ~= k or int(c) ~= fields[i + 1] then
          put[to] = true
        end
      end
    end
  end
  for i = 1, #drop, 500 do
    redis.call('HDEL', key, unpack(drop, i, math.min(i + 499, #drop)))
  end
  local counts = {}
  for k, c in pairs(byBucket) do
    if put[k] then
      redis.call('HSET', key, int(k), int(c))
    end
    counts[#counts + 1] = {k, c}
  end
  table.sort(counts, function(a, b) return a[1] < b[1] end)
  return used, counts
end

-- Milliseconds until enough counted permits leave for `excess` more to fit.
local function retryAfter(counts, excess)
  local leaving = 0
  for _, bucket in ipairs(counts) do
    leaving = leaving + bucket[2]
    if leaving >= excess then
      return math.max(1, math.ceil(((bucket[1] + 1) * width + window - now) / 1000))
    end
  end
  return math.max(1, math.ceil((window + width) / 1000))
end

local function giveBack(receipt, unused)
  local r = redis.call('GET', receipt)
  if not r or unused <= 0 then
    return 0
  end
  redis.call('DEL', receipt)
  local k, granted, epoch = string.match(r, '^(%-?%d+):(%d+):?(%d*)$')
  if not k or epoch ~= (redis.call('HGET', KEYS[1], 'a') or '') or tonumber(k) < keep then
    return 0
  end
  local back = math.min(unused, tonumber(granted))
  for _, key in ipairs({KEYS[1], KEYS[4]}) do
    local c = number(redis.call('HGET', key, k))
    if c then
      local left = c - back
      if left > 0 then
        redis.call('HSET', key, k, int(left))
      else
        redis.call('HDEL', key, k)
      end
    end
  end
  return back
end

if op == 'b' then
  return {giveBack(KEYS[2], tonumber(ARGV[12]))}
end
if op == 'l' and #KEYS >= 5 then
  -- Settled before a re-anchor, while the lease's bucket still has the name its receipt gives.
  giveBack(KEYS[5], tonumber(ARGV[12]))
end

local back = 0
if last - clock >= width then
  back = math.floor((last - clock) / width)
  now = last - back * width
  keep = math.floor((now - window) / width)
  redis.call('HSET', KEYS[1], 't', int(now), 'a', int(clock))
end

local wanted = tonumber(ARGV[5])
local minimum = tonumber(ARGV[6])
local valid = op == 'l' and tonumber(ARGV[7]) or 0
local used, counts = load(KEYS[1], back, math.floor((now + window) / width))
local free = math.max(0, limit - used)

local share = -1
local cap = wanted
if op == 'l' then
  local nowMs = math.floor(now / 1000)
  local demand = tonumber(ARGV[9])
  local instance = ARGV[10]
  local fresh = tonumber(ARGV[11])
  if demand > 0 then
    redis.call('HSET', KEYS[3], instance, int(demand) .. ':' .. nowMs)
  end
  redis.call('PEXPIRE', KEYS[3], int(2 * fresh))
  local fields = redis.call('HGETALL', KEYS[3])
  local demands, stale, total = {}, {}, 0
  for i = 1, #fields, 2 do
    local d, at = string.match(fields[i + 1], '^(%d+):(%d+)$')
    d, at = tonumber(d), tonumber(at)
    -- Malformed, old, or said at a time further ahead than it could be (the clock stepped back):
    -- dropped; an instance says its demand again with every lease.
    if not at or at < nowMs - fresh or at > nowMs + fresh then
      stale[#stale + 1] = fields[i]
    else
      demands[#demands + 1] = d
      total = total + d
    end
  end
  for i = 1, #stale, 500 do
    redis.call('HDEL', KEYS[3], unpack(stale, i, math.min(i + 499, #stale)))
  end
  if total > limit and #demands > 1 then
    table.sort(demands)
    local left, level = limit, limit
    for i, d in ipairs(demands) do
      level = left / (#demands - i + 1)
      if d > level then
        break
      end
      left = left - d
      level = left
    end
    share = math.max(1, math.floor(level))
    local mine = load(KEYS[4], 0, math.floor((now + valid) / width))
    cap = math.max(0, share - mine)
  end
end

if minimum > limit or free < minimum then
  local retry = minimum > limit and math.ceil(window / 1000) or retryAfter(counts, used + minimum - limit)
  if op == 'c' then
    return {0, free, retry, now}
  end
  return {1, 0, 0, free, retry, now, share}
end
if cap < minimum then
  -- This instance holds its fair share already: it asks again within a bucket.
  return {1, 0, 0, free, math.max(1, math.ceil(width / 1000)), now, share}
end

local n = math.min(wanted, free, cap)
local k = math.floor((now + valid) / width)
local ttl = int(math.ceil(((k + 1) * width + window - clock) / 1000))
redis.call('HINCRBY', KEYS[1], k, n)
redis.call('HSET', KEYS[1], 't', int(now))
redis.call('PEXPIRE', KEYS[1], ttl)
if op == 'c' then
  return {1, free - n, 0, now}
end
redis.call('HINCRBY', KEYS[4], k, n)
redis.call('PEXPIRE', KEYS[4], ttl)
redis.call('SET', KEYS[2], int(k) .. ':' .. int(n) .. ':' .. (redis.call('HGET', KEYS[1], 'a') or ''), 'PX', ARGV[8])
return {0, n, valid, free - n, 0, now, share}
