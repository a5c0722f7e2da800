-- Weir cluster mode: settles one admitted call (Entry.settle), atomic on the Redis server: the
-- permits counted for it change by delta, on the state it was counted in, for each of its limits.
--
-- KEYS[i]  limit i's key, as the decision script named it
-- ARGV[1]  delta: actual cost - estimate, a whole number; negative gives back, positive is a debt
-- ARGV[2]  the admission's Redis time in us (the decision's stamp)
-- ARGV[3 + 4(i-1) .. 6 + 4(i-1)]  limit i: kind, then
--            "w" (sliding-window.lua):  limit, window in ms, buckets
--            "x" (exact-window.lua):    limit, window in ms, (unused)
--            "g" (gcra.lua):            emission interval in us, capacity, (unused)
--            "l" (lease-window.lua, a call decided alone):  limit, window in ms, bucket width in us
-- Returns  {the permits each limit's count changed by, in KEYS order}
--
-- What each kind does, and why it never counts less than was used (the bound, docs/cluster.md):
--   w, l  The admission's bucket is floor(stamp / width). A refund takes at most min(-delta, that
--      bucket's count) out of that bucket, only while it is in the window: a bucket that has left
--      it no longer counts anything, so there is nothing to give back (a refund from a later
--      bucket would uncount other calls' permits for longer than the call's own were counted). A
--      debt is added to that bucket while it is in the window, so the extra permits leave with
--      the call's own; else to the current bucket (counted a window from now). A bucket ahead of
--      the clock (a step back not yet re-anchored by a decision) is adjusted where it lies: the
--      next decision moves it with the others. After a re-anchor the call's permits lie in a
--      bucket of another number: a refund then finds nothing, or, once the clock has caught up
--      with the old number, another bucket, which it may free up to the step early (as a step
--      forward does, see sliding-window.lua).
--   x  The admission's members are the ones scored at the stamp. A refund removes up to
--      -delta of them, those named last, so the names at that time stay 0..n-1
--      (the decision script numbers new members from the count at their time). None found (they
--      left the window, or a step back re-anchored them under new times): nothing is given back.
--      A debt adds members at the stamp while it is in the window (else at Redis' time), numbered
--      after the members already there.
--   g  A refund moves the key's theoretical arrival time back by |refund| emissions (the call
--      then took what it used); a debt moves it on by delta emissions, from now if it lies behind.
-- A debt is capped at what fills one window (w: the limit; x: the limit, and the log at twice
-- it; g: the capacity, whose horizon the decision script would cap a further TAT at): a debt
-- beyond that refuses no longer, since no decision looks further back than a window. So no number
-- here overflows, whatever delta is (Long.MAX_VALUE too). Stored values that are not numbers are
-- left as they are (the decision scripts check them).
local delta = tonumber(ARGV[1])
local stamp = tonumber(ARGV[2])
local time = redis.call('TIME')
local clock = tonumber(time[1]) * 1000000 + tonumber(time[2])

local function int(n)
  return string.format('%.0f', n)
end

local function number(s)
  local n = tonumber(s)
  if n and n == n and n > -math.huge and n < math.huge then
    return n
  end
  return nil
end

local function window(key, limit, windowUs, widthUs)
  local current = math.floor(clock / widthUs)
  local oldest = current - math.floor(windowUs / widthUs) + 1
  local bucket = math.floor(stamp / widthUs)
  local count = number(redis.call('HGET', key, int(bucket)))
  if delta < 0 then
    if bucket < oldest or not count or count <= 0 then
      return 0
    end
    local back = math.min(-delta, count)
    if count - back <= 0 then
      redis.call('HDEL', key, int(bucket))
    else
      redis.call('HSET', key, int(bucket), int(count - back))
    end
    return -back
  end
  local debt = math.min(delta, math.ceil(limit))
  if debt <= 0 then
    return 0
  end
  if bucket < oldest then
    bucket = current
    count = number(redis.call('HGET', key, int(bucket)))
  end
  redis.call('HSET', key, int(bucket), int(math.max(0, count or 0) + debt))
  -- Kept at least until the bucket has left the window; an expiry already longer stays.
  local needed = math.ceil(((math.max(bucket, current) + 1) * widthUs + windowUs - clock) / 1000)
  local ttl = redis.call('PTTL', key)
  if ttl < needed then
    redis.call('PEXPIRE', key, int(math.max(1, needed)))
  end
  return debt
end

local function exact(key, limit, windowMs)
  local span = windowMs * 1000
  local at = int(stamp)
  if delta < 0 then
    if stamp <= clock - span then
      return 0
    end
    local members = redis.call('ZRANGEBYSCORE', key, at, at)
    local back = math.min(-delta, #members)
    if back <= 0 then
      return 0
    end
    local numbered = {}
    for i = 1, #members do
      numbered[i] = tonumber(string.match(members[i], ':(%d+)$')) or -1
    end
    table.sort(numbered)
    local drop = {}
    for i = #numbered - back + 1, #numbered do
      drop[#drop + 1] = at .. ':' .. int(numbered[i])
    end
    for i = 1, #drop, 1000 do
      redis.call('ZREM', key, unpack(drop, i, math.min(i + 999, #drop)))
    end
    return -back
  end
  local size = redis.call('ZCARD', key)
  local debt = math.min(delta, limit, math.max(0, 2 * limit - size))
  if debt <= 0 then
    return 0
  end
  if stamp <= clock - span then
    stamp = clock
    at = int(clock)
  end
  local same = redis.call('ZCOUNT', key, at, at)
  local args = {}
  for i = 0, debt - 1 do -- at most 1000 members per ZADD, as in exact-window.lua
    args[#args + 1] = at
    args[#args + 1] = at .. ':' .. int(same + i)
    if #args == 2000 or i == debt - 1 then
      redis.call('ZADD', key, unpack(args))
      args = {}
    end
  end
  local ttl = redis.call('PTTL', key)
  local needed = math.ceil((stamp + span - clock) / 1000)
  if ttl < needed then
    redis.call('PEXPIRE', key, int(math.max(1, needed)))
  end
  return debt
end

local function gcra(key, emission, capacity)
  local horizon = capacity * emission
  local stored = redis.call('GET', key)
  local tat = stored and number(stored)
  if stored and not tat then
    return 0
  end
  if delta < 0 then
    if not tat or tat <= clock then
      return 0 -- the bucket is full again: nothing is counted to give back
    end
    local back = -delta
    local moved = tat - back * emission
    if moved <= clock then
      redis.call('DEL', key)
    else
      redis.call('SET', key, int(math.ceil(moved)), 'PX', int(math.max(1, math.ceil((moved - clock) / 1000))))
    end
    return -back
  end
  local from = math.max(tat or clock, clock)
  local debt = math.min(delta, math.ceil(capacity))
  local moved = math.min(from + debt * emission, math.max(from, clock + horizon))
  redis.call('SET', key, int(math.ceil(moved)), 'PX', int(math.max(1, math.ceil((moved - clock) / 1000))))
  return debt
end

local applied = {}
for i = 1, #KEYS do
  local at = 3 + 4 * (i - 1)
  local kind = ARGV[at]
  if delta == 0 then
    applied[i] = 0
  elseif kind == 'x' then
    applied[i] = exact(KEYS[i], tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]))
  elseif kind == 'g' then
    applied[i] = gcra(KEYS[i], tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]))
  elseif kind == 'l' then
    applied[i] = window(KEYS[i], tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]) * 1000, tonumber(ARGV[at + 3]))
  else
    applied[i] = window(KEYS[i], tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2]) * 1000,
      tonumber(ARGV[at + 2]) * 1000 / tonumber(ARGV[at + 3]))
  end
end
return applied
