package dev.weir.spring.cluster;

import dev.weir.spring.test.RedisServer;
import java.util.ArrayList;
import java.util.List;

/**
 * Redis' clock stepped back, as the Lua scripts see it: every time a script stored in a key moved
 * ahead of Redis' {@code TIME} by the step, and the key's expiry with it (Redis keeps expiries as
 * wall-clock instants, so a real step back lengthens them by the step too). Used on a real
 * {@code redis-server}, whose own clock cannot be stepped from a test.
 */
final class ClockSteps {

  private ClockSteps() {}

  /**
   * A bucketed hash (lease-window.lua's, sliding-window.lua's): field {@code t} by the step, the
   * buckets by as many widths as the step spans, rounded up.
   */
  static void hashAhead(RedisServer redis, String key, long stepMicros, long widthMicros) { // sliding-window: both in ms
    long buckets = (stepMicros + widthMicros - 1) / widthMicros;
    List<String> fields = strings(redis.call("HGETALL", key));
    long ttl = (Long) redis.call("PTTL", key);
    List<String> moved = new ArrayList<>(List.of("HSET", key));
    for (int i = 0; i < fields.size(); i += 2) {
      String field = fields.get(i);
      String value = fields.get(i + 1);
      if (field.equals("t")) {
        value = Long.toString(Long.parseLong(value) + stepMicros);
      } else if (isNumber(field)) {
        field = Long.toString(Long.parseLong(field) + buckets);
      }
      moved.add(field);
      moved.add(value);
    }
    redis.call("DEL", key);
    if (moved.size() > 2) {
      redis.call(moved.toArray(String[]::new));
    }
    expiryAhead(redis, key, ttl, stepMicros);
  }

  /** A sorted-set log (exact-window.lua's): every member's score by the step, names as they were. */
  static void membersAhead(RedisServer redis, String key, long stepMicros) {
    List<String> members = strings(redis.call("ZRANGE", key, "0", "-1", "WITHSCORES"));
    long ttl = (Long) redis.call("PTTL", key);
    List<String> moved = new ArrayList<>(List.of("ZADD", key));
    for (int i = 0; i < members.size(); i += 2) {
      moved.add(Long.toString(Long.parseLong(members.get(i + 1)) + stepMicros));
      moved.add(members.get(i));
    }
    redis.call("DEL", key);
    if (moved.size() > 2) {
      redis.call(moved.toArray(String[]::new));
    }
    expiryAhead(redis, key, ttl, stepMicros);
  }

  /** A GCRA state (gcra.lua's, lease-gcra.lua's): the theoretical arrival time by the step. */
  static void tatAhead(RedisServer redis, String key, long stepMicros) {
    long ttl = (Long) redis.call("PTTL", key);
    long tat = Long.parseLong(redis.command("GET", key));
    redis.call("SET", key, Long.toString(tat + stepMicros));
    expiryAhead(redis, key, ttl, stepMicros);
  }

  /** Redis' {@code TIME}, in microseconds. */
  static long redisMicros(RedisServer redis) {
    List<String> time = strings(redis.call("TIME"));
    return Long.parseLong(time.get(0)) * 1_000_000 + Long.parseLong(time.get(1));
  }

  private static void expiryAhead(RedisServer redis, String key, long ttl, long stepMicros) {
    if (ttl > 0) {
      redis.call("PEXPIRE", key, Long.toString(ttl + stepMicros / 1000));
    }
  }

  private static boolean isNumber(String field) {
    return !field.isEmpty() && field.chars().allMatch(c -> c >= '0' && c <= '9');
  }

  @SuppressWarnings("unchecked")
  private static List<String> strings(Object reply) {
    List<String> strings = new ArrayList<>();
    for (Object o : (List<Object>) reply) {
      strings.add((String) o);
    }
    return strings;
  }
}
