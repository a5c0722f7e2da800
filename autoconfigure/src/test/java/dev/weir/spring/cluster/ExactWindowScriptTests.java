package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The exact-window Lua script on its own, sent with a plain RESP client to a real
 * {@code redis-server}: its arithmetic (checked against the Redis time it returns), what it leaves
 * in the sorted set, and its bound when Redis' clock is behind the newest admission.
 */
@Timeout(30)
class ExactWindowScriptTests extends WithSharedRedisServer {

  private static final String script = luaScript("exact-window.lua");
  private static final AtomicInteger KEYS = new AtomicInteger();

  @Test
  void admitsUpToTheLimitThenRefusesUntilTheOldestAdmissionIsAWindowOld() {
    String key = key();
    List<Long> first = decide(key, 3, 10_000, 1);
    assertThat(first.subList(0, 3)).containsExactly(1L, 2L, 0L);
    assertThat(decide(key, 3, 10_000, 1).subList(0, 3)).containsExactly(1L, 1L, 0L);
    assertThat(decide(key, 3, 10_000, 1).subList(0, 3)).containsExactly(1L, 0L, 0L);
    List<Long> refused = decide(key, 3, 10_000, 1);
    assertThat(refused.subList(0, 2)).containsExactly(0L, 0L);
    // The first admission leaves the window 10 s after its own Redis time, to the millisecond (rounded up).
    assertThat(refused.get(2)).isEqualTo(ceilMillis(first.get(3) + 10_000_000 - refused.get(3)));
    assertThat(redis.call("ZCARD", key)).isEqualTo(3L);
  }

  @Test
  void retryAfterNamesTheAdmissionWhoseLeavingMakesRoomForAllThePermitsAsked() {
    String key = key();
    long now = redisMicros();
    // Four admissions at known times in the last 10 s; the limit is 5.
    long[] times = {now - 9_000_000, now - 7_000_500, now - 5_000_000, now - 1_000_000};
    for (int i = 0; i < times.length; i++) {
      redis.call("ZADD", key, Long.toString(times[i]), times[i] + ":0");
    }
    // 3 permits need 2 of the 4 to leave: the second oldest, 10 s after its time.
    List<Long> refused = decide(key, 5, 10_000, 3);
    assertThat(refused.subList(0, 2)).containsExactly(0L, 1L);
    assertThat(refused.get(2)).isEqualTo(ceilMillis(times[1] + 10_000_000 - refused.get(3)));
    // 1 permit fits now; the next one needs the oldest to leave.
    List<Long> admitted = decide(key, 5, 10_000, 1);
    assertThat(admitted.subList(0, 3)).containsExactly(1L, 0L, 0L);
    List<Long> next = decide(key, 5, 10_000, 1);
    assertThat(next.get(2)).isEqualTo(ceilMillis(times[0] + 10_000_000 - next.get(3)));
  }

  @Test
  void anAdmissionAWindowOldIsTrimmedAndOneJustYoungerStillCounts() {
    String key = key();
    long now = redisMicros();
    // A window of 100 s: "young" is ahead of Redis' clock by less than a hundredth of it (1 s), so
    // the script decides at it, and "old" is a window before that, or more.
    redis.call("ZADD", key, Long.toString(now - 100_000_000), "old:0");
    redis.call("ZADD", key, Long.toString(now + 500_000), "young:0");
    List<Long> decided = decide(key, 1, 100_000, 1);
    assertThat(decided.get(3)).isEqualTo(now + 500_000);
    assertThat(decided.subList(0, 2)).containsExactly(0L, 0L);
    assertThat(redis.call("ZSCORE", key, "old:0")).isNull();
    assertThat(decided.get(2)).isEqualTo(100_000L); // the young one leaves a full window after the decision time
  }

  @Test
  void aRefusalAddsNothingAndALimitOfZeroLeavesNoKey() {
    String key = key();
    decide(key, 1, 10_000, 1);
    Object before = redis.call("ZRANGE", key, "0", "-1", "WITHSCORES");
    assertThat(decide(key, 1, 10_000, 1).get(0)).isZero();
    assertThat(redis.call("ZRANGE", key, "0", "-1", "WITHSCORES")).isEqualTo(before);

    String empty = key();
    assertThat(decide(empty, 0, 10_000, 1).subList(0, 3)).containsExactly(0L, 0L, 10_000L);
    assertThat(redis.call("EXISTS", empty)).isEqualTo(0L);
  }

  @Test
  void morePermitsThanTheLimitNeverFitAndWaitAWindow() {
    assertThat(decide(key(), 3, 1000, 4).subList(0, 3)).containsExactly(0L, 3L, 1000L);
  }

  @Test
  void onePermitIsOneUniqueMemberAtTheDecisionTimeAndTheKeyExpiresAWindowAfterIt() {
    String key = key();
    List<Long> decided = decide(key, 100, 1000, 3);
    assertThat(decided.subList(0, 3)).containsExactly(1L, 97L, 0L);
    @SuppressWarnings("unchecked")
    List<Object> members = (List<Object>) redis.call("ZRANGE", key, "0", "-1", "WITHSCORES");
    long stamp = decided.get(3);
    assertThat(members).containsExactly(stamp + ":0", Long.toString(stamp), stamp + ":1", Long.toString(stamp),
        stamp + ":2", Long.toString(stamp));
    assertThat((Long) redis.call("PTTL", key)).isBetween(1L, 1000L);
  }

  /**
   * Redis' clock behind the newest admission (a promoted replica whose clock is behind, or a step
   * back) by no more than a hundredth of the window: two admissions at A were trimmed by a call at
   * B = A + window (100 s), which the set still holds. A call now, at A + 99.5 s by Redis' clock,
   * must be decided at B: decided at its own time it would be a third admission in
   * [A, A + window) with a limit of 2. (Behind by more, the script re-anchors: see the steps back
   * below.)
   */
  @Test
  void aClockBehindTheNewestAdmissionDecidesAtThatAdmissionSoNoSpanHoldsMoreThanTheLimit() {
    String key = key();
    long now = redisMicros();
    long a = now - 99_500_000;
    long b = a + 100_000_000;
    redis.call("ZADD", key, Long.toString(b), b + ":0");
    List<Long> stamps = new ArrayList<>(List.of(a, a, b));
    List<Long> decided = decide(key, 2, 100_000, 1);
    assertThat(decided.get(0)).isEqualTo(1L);
    stamps.add(decided.get(3));
    assertThat(decided.get(3)).isEqualTo(b);
    assertThat(redis.call("ZSCORE", key, b + ":1")).isEqualTo(Long.toString(b)); // unique at one time
    assertThat(Spans.mostInAnySpan(stamps, 100_000_000)).isLessThanOrEqualTo(2);
    // The key outlives the clock's lag: a window after B, not after Redis' now.
    assertThat((Long) redis.call("PTTL", key)).isGreaterThan(100_000L);
  }

  /**
   * Up to the limit (10000) of permits in one call, around the 1000-member chunks the script adds
   * them in: every permit one member, all with the call's Redis time, none twice. (One ZADD of all
   * of them failed from 4000 permits on: Lua cannot unpack that many values.)
   */
  @Test
  void aCallOfThousandsOfPermitsAddsOneMemberEachInChunks() {
    int total = 0;
    String key = key();
    for (int permits : new int[] {999, 1000, 1001, 2001, 4999}) {
      List<Long> decision = decide(key, 10_000, 10_000, permits);
      total += permits;
      assertThat(decision.subList(0, 3)).as("%d permits", permits).containsExactly(1L, 10_000L - total, 0L);
      @SuppressWarnings("unchecked")
      List<Object> members = (List<Object>) redis.call("ZRANGEBYSCORE", key, Long.toString(decision.get(3)),
          Long.toString(decision.get(3)));
      assertThat(members).as("members of the call of %d permits", permits).hasSize(permits).doesNotHaveDuplicates();
    }
    assertThat(redis.call("ZCARD", key)).isEqualTo(10_000L);
    assertThat(decide(key, 10_000, 10_000, 1).get(0)).isZero();
    String full = key();
    assertThat(decide(full, 10_000, 10_000, 10_000).subList(0, 2)).containsExactly(1L, 0L);
    assertThat(redis.call("ZCARD", full)).isEqualTo(10_000L);
  }

  /**
   * Redis' clock stepped back an hour on a saturated rule of 10 per second (every member an hour
   * ahead of TIME): deciding at the newest member, as before, refused everything for the hour, each
   * refusal saying "retry in a second". Re-anchored, the members move back by the lag: they leave a
   * window after the first decision following the step, and not sooner.
   */
  @Test
  void aClockStepBackOfAnHourAdmitsAgainAWindowAfterTheFirstDecisionAfterIt() throws Exception {
    String key = key();
    assertThat(decide(key, 10, 1000, 10).get(0)).isEqualTo(1L);
    ClockSteps.membersAhead(redis, key, 3_600_000_000L);
    List<Long> first = decide(key, 10, 1000, 1);
    assertThat(first.subList(0, 2)).containsExactly(0L, 0L);
    assertThat(first.get(2)).isLessThanOrEqualTo(1000L);
    long stepped = first.get(3);
    long start = redisMicros();
    List<Long> admitted = null;
    while (admitted == null && redisMicros() < start + 3_000_000) {
      List<Long> next = decide(key, 10, 1000, 1);
      if (next.get(0) == 0L) {
        assertThat(next.get(3)).as("refused a window after the step").isLessThan(stepped + 1_000_000);
        Thread.sleep(Math.min(20, next.get(2)));
      } else {
        admitted = next;
      }
    }
    assertThat(admitted).as("admitted again after the step back").isNotNull();
    assertThat(admitted.get(3)).as("not before the ten leave").isGreaterThanOrEqualTo(stepped + 1_000_000);
  }

  /**
   * Steps back of every size one after another, below the bound (a hundredth of the window: the
   * script decides at the newest member) and above (it re-anchors), on a saturated rule of 10 per
   * 100 s: nothing is admitted, nothing lost. (Trimming or ignoring the members ahead of the clock
   * would admit 10 each time.)
   */
  @Test
  void stepsBackOfEverySizeOneAfterAnotherNeverLetMoreThanTheLimitIntoAWindow() {
    String key = key();
    long start = redisMicros();
    assertThat(decide(key, 10, 100_000, 10).get(0)).isEqualTo(1L);
    long[] steps = {1, 999_999, 1_000_000, 1_000_001, 5_000_000, 99_000_000, 100_000_000, 3_600_000_000L};
    int admitted = 0;
    for (int round = 0; round < 5; round++) {
      for (long step : steps) {
        ClockSteps.membersAhead(redis, key, step);
        admitted += decide(key, 10, 100_000, 1).get(0).intValue();
      }
    }
    assertThat(redisMicros() - start).as("the steps took less than a window").isLessThan(100_000_000L);
    assertThat(admitted).isZero();
    assertThat(redis.call("ZCARD", key)).isEqualTo(10L);
  }

  private String key() {
    return "script:{r" + KEYS.incrementAndGet() + "}:exact:all:1000ms";
  }

  @SuppressWarnings("unchecked")
  private static List<Long> decide(String key, long limit, long windowMillis, int permits) {
    return (List<Long>) redis.call("EVAL", script, "1", key, Long.toString(limit), Long.toString(windowMillis),
        Integer.toString(permits));
  }

  private static long ceilMillis(long micros) {
    return Math.max(1, (micros + 999) / 1000);
  }

  private static long redisMicros() {
    @SuppressWarnings("unchecked")
    List<Object> time = (List<Object>) redis.call("TIME");
    return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
  }
}
