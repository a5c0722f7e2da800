package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The script that decides several limits of one resource at once, on a real {@code redis-server}:
 * all or nothing, which limit refused, the retry-after of the slowest, and the same counts as the
 * one-limit scripts keep in the same keys.
 */
@Timeout(30)
class SeveralLimitsScriptTests extends WithSharedRedisServer {

  private static final String script = luaScript("several-limits.lua");
  private static final String slidingWindow = luaScript("sliding-window.lua");
  private static final String exactWindow = luaScript("exact-window.lua");
  private static final AtomicInteger KEYS = new AtomicInteger();

  @Test
  void aCallRefusedByTheSecondLimitTakesNothingFromTheFirst() {
    String window = windowKey();
    String exact = exactKey();
    List<Object> limits = List.of("w", "5", "10000", "10", "x", "2", "10000", "10");
    assertThat(decide(1, List.of(window, exact), limits).subList(0, 3)).containsExactly(1L, 1L, 0L);
    List<Long> second = decide(1, List.of(window, exact), limits);
    assertThat(second.subList(0, 3)).containsExactly(1L, 0L, 0L);
    List<Long> refused = decide(1, List.of(window, exact), limits);
    assertThat(refused.get(0)).isZero();
    assertThat(refused.get(4)).as("refused by the second limit").isEqualTo(1L);
    assertThat(refused.get(1)).as("the refusing limit's free permits").isZero();
    assertThat(refused.get(2)).isBetween(9_000L, 10_000L);
    assertThat(hashSum(window)).as("the first limit counted the two admissions only").isEqualTo(2);
    assertThat(redis.call("ZCARD", exact)).isEqualTo(2L);
    // The exact limit's members carry the time the script returned.
    assertThat(redis.call("ZSCORE", exact, second.get(3) + ":0")).isEqualTo(Long.toString(second.get(3)));
  }

  @Test
  void aRefusalByTheFirstLimitWritesNoKeyAndRetryAfterIsTheSlowestRefusers() {
    String window = windowKey();
    String exact = exactKey();
    long now = redisMicros();
    redis.call("ZADD", exact, Long.toString(now - 2_000_000), "seeded:0"); // leaves 8 s from now
    List<Long> refused = decide(1, List.of(window, exact), List.of("w", "0", "10000", "10", "x", "1", "10000", "10"));
    assertThat(refused.get(0)).isZero();
    assertThat(refused.get(4)).isZero();
    // The bucketed limit of 0 never fits: a window; the exact one would fit in 8 s: the longer wins.
    assertThat(refused.get(2)).isEqualTo(10_000L);
    assertThat(redis.call("EXISTS", window)).isEqualTo(0L);
    assertThat(redis.call("ZCARD", exact)).isEqualTo(1L);

    String other = exactKey();
    redis.call("ZADD", other, Long.toString(now - 2_000_000), "seeded:0");
    List<Long> onlyExact = decide(1, List.of(windowKey(), other), List.of("w", "9", "10000", "10", "x", "1", "10000", "10"));
    assertThat(onlyExact.get(2)).isEqualTo((now - 2_000_000 + 10_000_000 - onlyExact.get(3) + 999) / 1000);
  }

  @Test
  void countsInTheSameKeysAsTheOneLimitScripts() {
    String window = windowKey();
    String exact = exactKey();
    redis.call("EVAL", slidingWindow, "1", window, "3", "10000", "10", "2");
    redis.call("EVAL", exactWindow, "1", exact, "3", "10000", "1");
    List<Object> limits = List.of("w", "3", "10000", "10", "x", "3", "10000", "10");
    assertThat(decide(1, List.of(window, exact), limits).subList(0, 3)).containsExactly(1L, 0L, 0L);
    assertThat(decide(1, List.of(window, exact), limits).get(4)).isZero(); // the window is full first
    assertThat(hashSum(window)).isEqualTo(3);
    assertThat(redis.call("ZCARD", exact)).isEqualTo(2L);
    assertThat((Long) redis.call("PTTL", window)).isBetween(1L, 11_000L);
    assertThat((Long) redis.call("PTTL", exact)).isBetween(1L, 10_000L);
  }

  @Test
  void severalPermitsFitOnlyWhereAllFit() {
    String a = exactKey();
    String b = exactKey();
    List<Object> limits = List.of("x", "10", "10000", "10", "x", "4", "10000", "10");
    assertThat(decide(3, List.of(a, b), limits).subList(0, 2)).containsExactly(1L, 1L);
    assertThat(decide(2, List.of(a, b), limits).get(0)).isZero();
    assertThat(decide(1, List.of(a, b), limits).get(0)).isEqualTo(1L);
    assertThat(redis.call("ZCARD", a)).isEqualTo(4L);
    assertThat(redis.call("ZCARD", b)).isEqualTo(4L);
  }

  /** Thousands of permits in one call, added to the exact limit in chunks of 1000 members (see exact-window.lua). */
  @Test
  void aCallOfThousandsOfPermitsIsCountedInEveryLimit() {
    String window = windowKey();
    String exact = exactKey();
    List<Object> limits = List.of("w", "100000", "10000", "10", "x", "10000", "10000", "10");
    List<Long> admitted = decide(5_000, List.of(window, exact), limits);
    assertThat(admitted.subList(0, 3)).containsExactly(1L, 5_000L, 0L);
    assertThat(decide(5_000, List.of(window, exact), limits).subList(0, 3)).containsExactly(1L, 0L, 0L);
    assertThat(hashSum(window)).isEqualTo(10_000);
    assertThat(redis.call("ZCARD", exact)).isEqualTo(10_000L);
    assertThat(decide(1, List.of(window, exact), limits).get(4)).as("refused by the exact limit").isEqualTo(1L);
  }

  private static String windowKey() {
    return "several:{r}:flow:all:" + KEYS.incrementAndGet() + ":10000ms";
  }

  private static String exactKey() {
    return "several:{r}:exact:all:" + KEYS.incrementAndGet() + ":10000ms";
  }

  /**
   * Redis' clock stepped back an hour on two saturated limits of 10 per second decided together
   * (the bucket and the members an hour ahead of TIME): each re-anchors as its own script does, so
   * the call is admitted again within a window of the first decision after the step, not after an
   * hour; and steps back one after another admit nothing before that.
   */
  @Test
  void aClockStepBackOfAnHourReAnchorsEveryLimitAndAdmitsAgainWithinAWindow() throws Exception {
    String window = windowKey();
    String exact = exactKey();
    List<Object> limits = List.of("w", "10", "1000", "10", "x", "10", "1000", "10");
    assertThat(decide(10, List.of(window, exact), limits).get(0)).isEqualTo(1L);
    for (long step : new long[] {1_000, 50_000, 3_600_000_000L}) {
      ClockSteps.hashAhead(redis, window, step / 1000, 100);
      ClockSteps.membersAhead(redis, exact, step);
      assertThat(decide(1, List.of(window, exact), limits).get(0)).as("a step back of %d us", step).isZero();
    }
    long stepped = redisMicros();
    List<Long> admitted = null;
    while (admitted == null && redisMicros() < stepped + 3_000_000) {
      long before = redisMicros();
      List<Long> next = decide(1, List.of(window, exact), limits);
      if (next.get(0) == 0L) {
        assertThat(before).as("refused a window after the step").isLessThan(stepped + 1_000_000);
        Thread.sleep(Math.min(20, next.get(2)));
      } else {
        admitted = next;
      }
    }
    assertThat(admitted).as("admitted again after the step back").isNotNull();
    assertThat(hashSum(window)).isEqualTo(1);
    assertThat(redis.call("ZCARD", exact)).isEqualTo(1L);
  }

  @SuppressWarnings("unchecked")
  private static List<Long> decide(int permits, List<String> keys, List<Object> limits) {
    List<String> arguments = new ArrayList<>();
    arguments.add("EVAL");
    arguments.add(script);
    arguments.add(Integer.toString(keys.size()));
    arguments.addAll(keys);
    arguments.add(Integer.toString(permits));
    limits.forEach(limit -> arguments.add(limit.toString()));
    return (List<Long>) redis.call(arguments.toArray(String[]::new));
  }

  private static long hashSum(String key) {
    @SuppressWarnings("unchecked")
    List<Object> fields = (List<Object>) redis.call("HGETALL", key);
    long sum = 0;
    for (int i = 1; i < fields.size(); i += 2) {
      sum += Long.parseLong((String) fields.get(i));
    }
    return sum;
  }

  private static long redisMicros() {
    @SuppressWarnings("unchecked")
    List<Object> time = (List<Object>) redis.call("TIME");
    return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
  }
}
