package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The Lua script of cluster mode on its own, sent with a plain RESP client to a real
 * {@code redis-server}: what it admits, what it answers, and what it leaves in the hash.
 */
class SlidingWindowScriptTests extends WithSharedRedisServer {

  private static final String script = luaScript("sliding-window.lua");
  private static final AtomicInteger KEYS = new AtomicInteger();

  @Test
  void admitsUpToTheLimitCountingDownRemainingThenRefusesWithinTheWindow() {
    String key = key();
    assertThat(decide(key, "3", 1000, 1).subList(0, 3)).containsExactly(1L, 2L, 0L);
    assertThat(decide(key, "3", 1000, 1).subList(0, 3)).containsExactly(1L, 1L, 0L);
    assertThat(decide(key, "3", 1000, 1).subList(0, 3)).containsExactly(1L, 0L, 0L);
    List<Long> refused = decide(key, "3", 1000, 1);
    assertThat(refused.subList(0, 2)).containsExactly(0L, 0L);
    assertThat(refused.get(2)).isBetween(1L, 1000L); // when the oldest counted bucket leaves
  }

  @Test
  void countsPermitsNotCalls() {
    String key = key();
    assertThat(decide(key, "10", 1000, 4).subList(0, 3)).containsExactly(1L, 6L, 0L);
    assertThat(decide(key, "10", 1000, 7).get(0)).isZero();
    assertThat(decide(key, "10", 1000, 6).subList(0, 3)).containsExactly(1L, 0L, 0L);
  }

  @Test
  void moreThanTheLimitAtOnceNeverFitsAndWaitsAWindow() {
    assertThat(decide(key(), "3", 1000, 5).subList(0, 3)).containsExactly(0L, 3L, 1000L);
  }

  @Test
  void aFractionalLimitAdmitsItsWholePart() {
    String key = key();
    assertThat(decide(key, "2.5", 1000, 1).get(0)).isEqualTo(1L);
    assertThat(decide(key, "2.5", 1000, 1).get(0)).isEqualTo(1L);
    assertThat(decide(key, "2.5", 1000, 1).get(0)).isZero();
  }

  @Test
  void dropsBucketsOlderThanTheWindowAndCountsBucketsAheadOfTheClock() {
    String key = key();
    long current = redisMillis() / 100; // 1000 ms in 10 buckets of 100 ms
    redis.call("HSET", key, Long.toString(current - 50), "100");
    assertThat(decide(key, "3", 1000, 1).subList(0, 3)).containsExactly(1L, 2L, 0L);
    assertThat(redis.call("HEXISTS", key, Long.toString(current - 50))).isEqualTo(0L);

    String ahead = key();
    redis.call("HSET", ahead, Long.toString(current + 5), "3");
    assertThat(decide(ahead, "3", 1000, 1).get(0)).isZero();
  }

  @Test
  void writesOneFieldPerBucketAndExpiresAWindowAndABucketAfterTheLastWrite() {
    String key = key();
    decide(key, "100", 1000, 2);
    decide(key, "100", 1000, 3);
    @SuppressWarnings("unchecked")
    List<Object> fields = (List<Object>) redis.call("HGETALL", key);
    long total = 0;
    for (int i = 1; i < fields.size(); i += 2) {
      total += Long.parseLong((String) fields.get(i));
    }
    assertThat(total).isEqualTo(5);
    assertThat(fields.size() / 2).isBetween(1, 2); // both calls in one bucket, or across a bucket edge
    assertThat((Long) redis.call("PTTL", key)).isBetween(1L, 1100L);
  }

  @Test
  void aRefusalWritesNothing() {
    String key = key();
    decide(key, "0", 1000, 1);
    assertThat(redis.call("EXISTS", key)).isEqualTo(0L);
  }

  /**
   * Redis' clock stepped back an hour on a saturated rule of 10 per second (its bucket an hour
   * ahead of the clock, and its expiry): counting the bucket where it lies, as before, refused
   * everything for the hour. Re-anchored, the newest bucket moves to the current one, so the ten
   * leave within a window of the first decision after the step.
   */
  @Test
  void aClockStepBackOfAnHourAdmitsAgainWithinAWindowOfTheFirstDecisionAfterIt() throws Exception {
    String key = key();
    assertThat(decide(key, "10", 1000, 10).get(0)).isEqualTo(1L);
    ClockSteps.hashAhead(redis, key, 3_600_000, 100);
    long start = redisMillis();
    List<Long> first = decide(key, "10", 1000, 1);
    long stepped = redisMillis(); // at or after the first decision's time
    assertThat(first.subList(0, 2)).containsExactly(0L, 0L);
    assertThat(first.get(2)).isBetween(1L, 1000L);
    List<Long> admitted = null;
    while (admitted == null && redisMillis() < start + 3000) {
      long before = redisMillis();
      List<Long> next = decide(key, "10", 1000, 1);
      if (next.get(0) == 0L) {
        assertThat(before).as("refused a window after the step").isLessThan(stepped + 1000);
        Thread.sleep(Math.min(20, next.get(2)));
      } else {
        admitted = next;
      }
    }
    assertThat(admitted).as("admitted again after the step back").isNotNull();
  }

  /**
   * Steps back of every size one after another on a saturated rule of 10 per 100 s: each moves the
   * counted buckets back together, the newest to the current bucket, so nothing is admitted and
   * nothing lost. (Dropping the buckets ahead of the clock would admit 10 each time.)
   */
  @Test
  void stepsBackOfEverySizeOneAfterAnotherNeverLetMoreThanTheLimitIntoAWindow() {
    String key = key();
    long start = redisMillis();
    assertThat(decide(key, "10", 100_000, 10).get(0)).isEqualTo(1L);
    long[] steps = {1, 9_999, 10_000, 10_001, 50_000, 99_000, 100_000, 3_600_000};
    int admitted = 0;
    for (int round = 0; round < 5; round++) {
      for (long step : steps) {
        ClockSteps.hashAhead(redis, key, step, 10_000);
        admitted += decide(key, "10", 100_000, 1).get(0).intValue();
      }
    }
    assertThat(redisMillis() - start).as("the steps took less than the window less a bucket").isLessThan(90_000L);
    assertThat(admitted).isZero();
    @SuppressWarnings("unchecked")
    List<Object> fields = (List<Object>) redis.call("HVALS", key);
    assertThat(fields).containsExactly("10");
  }

  /** Counts that are not numbers count as the limit, negative ones as none; both are written back checked. */
  @Test
  void garbageAndNegativeCountsAreCheckedNotTrusted() {
    String key = key();
    long current = redisMillis() / 100;
    redis.call("HSET", key, Long.toString(current - 1), "-1000");
    assertThat(decide(key, "3", 1000, 3).get(0)).as("a negative count frees nothing").isEqualTo(1L);
    String garbage = key();
    redis.call("HSET", garbage, Long.toString(current - 1), "lots");
    assertThat(decide(garbage, "3", 1000, 1).get(0)).isZero();
    assertThat(redis.call("HGET", garbage, Long.toString(current - 1))).isIn("3", null);
  }

  private String key() {
    return "script:{r" + KEYS.incrementAndGet() + "}:flow:all:1000ms";
  }

  @SuppressWarnings("unchecked")
  private static List<Long> decide(String key, String limit, long windowMillis, int permits) {
    return (List<Long>) redis.call("EVAL", script, "1", key, limit, Long.toString(windowMillis), "10",
        Integer.toString(permits));
  }

  private static long redisMillis() {
    @SuppressWarnings("unchecked")
    List<Object> time = (List<Object>) redis.call("TIME");
    return Long.parseLong((String) time.get(0)) * 1000 + Long.parseLong((String) time.get(1)) / 1000;
  }
}
