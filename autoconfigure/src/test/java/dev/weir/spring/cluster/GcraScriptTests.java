package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The per-key script ({@code gcra.lua}) on a real {@code redis-server}: the arithmetic of the
 * theoretical arrival time against the Redis time it returns, burst, expiry, a refusal that writes
 * nothing, and a state written ahead of Redis' clock.
 */
@Timeout(30)
class GcraScriptTests extends WithSharedRedisServer {

  private static final String script = luaScript("gcra.lua");
  private static final AtomicInteger KEYS = new AtomicInteger();
  /** 3 per second: one permit per 333333.3 us. */
  private static final double EMISSION = 1_000_000.0 / 3;

  @Test
  void aFullBucketAdmitsItsCapacityThenRefusesUntilTheNextEmissionToTheMillisecond() {
    String key = key();
    List<Long> first = decide(key, EMISSION, 3, 1);
    assertThat(first.subList(0, 3)).containsExactly(1L, 2L, 0L);
    assertThat(decide(key, EMISSION, 3, 1).subList(0, 2)).containsExactly(1L, 1L);
    List<Long> third = decide(key, EMISSION, 3, 1);
    assertThat(third.subList(0, 2)).containsExactly(1L, 0L);
    long tat = Long.parseLong((String) redis.call("GET", key));
    // The TAT: three emissions after the first decision's time, each rounded up to the microsecond.
    assertThat(tat).isEqualTo((long) Math.ceil(Math.ceil(Math.ceil(first.get(3) + EMISSION) + EMISSION) + EMISSION));
    List<Long> refused = decide(key, EMISSION, 3, 1);
    assertThat(refused.subList(0, 2)).containsExactly(0L, 0L);
    assertThat(refused.get(2)).isEqualTo(Math.max(1, (long) Math.ceil((tat + EMISSION - refused.get(3) - 3 * EMISSION) / 1000)));
    assertThat(redis.call("GET", key)).as("a refusal writes nothing").isEqualTo(Long.toString(tat));
    // The key lives until the bucket is full again.
    assertThat((Long) redis.call("PTTL", key)).isBetween(1L, 1000L);
  }

  @Test
  void burstAddsToTheCapacityAndSeveralPermitsCostSeveralEmissions() {
    String key = key();
    assertThat(decide(key, EMISSION, 5, 4).subList(0, 2)).containsExactly(1L, 1L); // 3 + burst 2
    assertThat(decide(key, EMISSION, 5, 2).get(0)).isZero();
    assertThat(decide(key, EMISSION, 5, 1).subList(0, 2)).containsExactly(1L, 0L);
  }

  @Test
  void aStateAheadOfRedisClockWithinTheHorizonIsHonouredAsIs() {
    String key = key();
    long now = redisMicros();
    long ahead = now + 900_000; // within the horizon (3 emissions: a second) of now
    redis.call("SET", key, Long.toString(ahead));
    List<Long> refused = decide(key, EMISSION, 3, 1);
    assertThat(refused.get(0)).isZero();
    assertThat(refused.get(2)).isEqualTo((long) Math.ceil((ahead + EMISSION - refused.get(3) - 3 * EMISSION) / 1000));
    assertThat(redis.call("GET", key)).isEqualTo(Long.toString(ahead));
  }

  @Test
  void morePermitsThanTheCapacityNeverFit() {
    String key = key();
    assertThat(decide(key, EMISSION, 3, 4).get(0)).isZero();
    assertThat(redis.call("EXISTS", key)).isEqualTo(0L);
  }

  /**
   * Redis' clock stepped back an hour on a key whose bucket of 10 per second is empty (its TAT an
   * hour and a second ahead of TIME): honoured as it was, the key refused everything for the hour.
   * Re-anchored at the horizon, it is an empty bucket refilling from now: one emission away.
   */
  @Test
  void aStateFurtherAheadThanTheHorizonIsReAnchoredAtItAnEmptyBucketRefillingFromNow() {
    String key = key();
    assertThat(decide(key, 100_000.0, 10, 10).get(0)).isEqualTo(1L);
    ClockSteps.tatAhead(redis, key, 3_600_000_000L);
    List<Long> refused = decide(key, 100_000.0, 10, 1);
    assertThat(refused.get(0)).isZero();
    assertThat(refused.get(2)).as("one emission, not an hour").isLessThanOrEqualTo(100L);
    assertThat(Long.parseLong(redis.command("GET", key)) - refused.get(3)).isEqualTo(1_000_000L);
    assertThat((Long) redis.call("PTTL", key)).isBetween(1L, 1000L);
  }

  /**
   * Steps back of every size one after another on an empty bucket of 10 per 100 s: a step back only
   * empties a bucket further (or re-anchors it empty), so nothing is admitted. (Dropping a state
   * ahead of the clock would make the bucket full again: 10 admitted each time.)
   */
  @Test
  void stepsBackOfEverySizeOneAfterAnotherNeverFillTheBucket() {
    String key = key();
    long start = redisMicros();
    assertThat(decide(key, 10_000_000.0, 10, 10).get(0)).isEqualTo(1L);
    long[] steps = {1, 5_000_000, 99_999_999, 100_000_000, 100_000_002, 3_600_000_000L};
    int admitted = 0;
    for (int round = 0; round < 5; round++) {
      for (long step : steps) {
        ClockSteps.tatAhead(redis, key, step);
        admitted += decide(key, 10_000_000.0, 10, 1).get(0).intValue();
      }
    }
    assertThat(redisMicros() - start).as("the steps took less than an emission").isLessThan(10_000_000L);
    assertThat(admitted).isZero();
  }

  /** A TAT that is not a number counts as an empty bucket, re-anchored at the horizon; never an error. */
  @Test
  void aStateThatIsNotANumberCountsAsAnEmptyBucket() {
    String key = key();
    redis.call("SET", key, "garbage");
    List<Long> refused = decide(key, EMISSION, 3, 1);
    assertThat(refused.get(0)).isZero();
    assertThat(Long.parseLong(redis.command("GET", key)) - refused.get(3)).isEqualTo(1_000_000L);
  }

  private static String key() {
    return "gcra:{r|k" + KEYS.incrementAndGet() + "}:pk:param=0,1000ms";
  }

  @SuppressWarnings("unchecked")
  private static List<Long> decide(String key, double emission, long capacity, int permits) {
    return (List<Long>) redis.call("EVAL", script, "1", key, Double.toString(emission), Long.toString(capacity),
        Integer.toString(permits));
  }

  private static long redisMicros() {
    @SuppressWarnings("unchecked")
    List<Object> time = (List<Object>) redis.call("TIME");
    return Long.parseLong((String) time.get(0)) * 1_000_000 + Long.parseLong((String) time.get(1));
  }
}
