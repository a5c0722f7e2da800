package dev.weir.internal.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * The exact arithmetic of one round of {@link AdaptiveController} (names as in
 * {@link AdaptiveLimiter}'s design comment: L the limit, B the baseline, X the throughput, R the
 * mean latency, N = X R).
 */
class AdaptiveControllerTest {

  private static final long MS = 1_000_000L;
  private static final long SECOND = 1_000_000_000L;
  private static final int CRITICAL = 1 << 2;

  private long now = SECOND;

  /**
   * A controller whose baseline is 20 ms, at limit {@code limit}: the first round is not used (it
   * counts only the calls that finished within it), the second gives a provisional baseline.
   */
  private AdaptiveController controller(int limit) {
    AdaptiveController controller = new AdaptiveController(limit);
    round(controller, 1000, 5 * MS, false, 10, 1, 1000);
    assertThat(controller.baseline).as("nothing learned from the first round").isNaN();
    round(controller, 1000, 20 * MS, false, 10, 1, 1000);
    assertThat(controller.baseline).isEqualTo(20.0 * MS);
    assertThat(controller.limit).isEqualTo(limit);
    return controller;
  }

  /** One round of one second with {@code completed} calls of mean latency {@code latency}. */
  private void round(AdaptiveController controller, int completed, long latency, boolean refused, int peak, int min,
      int max) {
    now += SECOND;
    controller.round(now, SECOND, completed, completed * latency, completed, refused, false, peak,
        refused ? CRITICAL : 0, min, max);
  }

  @Test
  void aBoundRoundWithAQueueHoldsTheCallsInsideAtTheKnee() {
    AdaptiveController controller = controller(50);
    // X = 2000/s, R = 22.5 ms (q = 1.125: a queue): N = 45, knee X B = 40, target 41.2; the 5
    // between the limit and N stay: L' = 41.2 + 5.
    round(controller, 2000, 22_500_000L, true, 50, 1, 1000);
    assertThat(controller.knee).isCloseTo(40, within(1e-9));
    assertThat(controller.limit).isCloseTo(46.2, within(1e-9));
    assertThat(controller.baseline).as("not learned from a bound round").isEqualTo(20.0 * MS);
  }

  @Test
  void aBoundRoundWithoutAQueueGrowsTheLimit() {
    AdaptiveController controller = controller(30);
    // X = 1000/s, R = B: N = 20, knee 20, target 20.6 + (30 - 20) = 30.6; no queue: at least 30 * 1.1.
    round(controller, 1000, 20 * MS, true, 30, 1, 1000);
    assertThat(controller.limit).isCloseTo(33, within(1e-9));
  }

  @Test
  void aBoundRoundAboveTheBaselineFollowsTheLittleTarget() {
    AdaptiveController controller = controller(30);
    // Unbound: the start is over; the limit rises to twice the peak plus the reserves, 2 x 10 + 16.
    round(controller, 1000, 20 * MS, false, 10, 1, 1000);
    assertThat(controller.limit).isEqualTo(36);
    // R = 21.6 ms (q = 1.08): N = 21.6, knee 20, L' = 20.6 + (36 - 21.6) = 35: no band holds it (a
    // band that holds the limit within the noise lets the calls inside sit anywhere in it).
    round(controller, 1000, 21_600_000L, true, 30, 1, 1000);
    assertThat(controller.limit).isCloseTo(35, within(1e-9));
  }

  @Test
  void anUnboundRoundKeepsTheLowestCriticalityAtTwiceThePeak() {
    AdaptiveController controller = controller(30);
    // Peak 25; the reserves of the ranks above the lowest: top 2 (CRITICAL) x a quarter of the knee
    // estimate (the starting limit before any bound round), ceil(30 * 0.25) = 8: 2 x 25 + 16.
    round(controller, 1000, 22 * MS, false, 25, 1, 1000);
    assertThat(controller.limit).isEqualTo(66);
    assertThat(controller.baseline).as("one reading beyond the noise is not believed").isEqualTo(20.0 * MS);
    round(controller, 1000, 21 * MS, false, 25, 1, 1000);
    assertThat(controller.baseline).as("within the noise: pooled, into a provisional baseline that weighs nothing")
        .isCloseTo(21.0 * MS, within(1.0));
    round(controller, 1000, 20 * MS, false, 25, 1, 40);
    assertThat(controller.limit).as("within max-limit").isEqualTo(40);
  }

  @Test
  void oneRoundMovesTheLimitByAFactorTwoAtMostButADrainGoesBelowTheKnee() {
    AdaptiveController controller = controller(10);
    round(controller, 5000, 20 * MS, true, 10, 1, 1000); // knee 100: capped at 2 L
    assertThat(controller.limit).isEqualTo(20);
    AdaptiveController falling = controller(100);
    now += SECOND; // knee 20, N 100 (a rule in shadow mode, which starts no drain): capped at L / 2
    falling.round(now, SECOND, 1000, 1000 * 100 * MS, 1000, true, true, 100, CRITICAL, 1, 1000);
    assertThat(falling.draining()).isFalse();
    assertThat(falling.limit).isEqualTo(50);
    AdaptiveController collapsing = controller(100);
    // Knee 10, N 100: the Little target 10.3 is cut to L / 2; a cut of more than 15 % whose latency
    // did not fall starts a drain at once, at the knee estimate less its depth: 8.5.
    round(collapsing, 500, 200 * MS, true, 100, 1, 1000);
    assertThat(collapsing.draining()).isTrue();
    assertThat(collapsing.limit).isCloseTo(8.5, within(1e-9));
  }

  @Test
  void theReserveIsAShareOfTheKneeAtLeastOneCall() {
    AdaptiveController controller = controller(100);
    round(controller, 2000, 40 * MS, true, 100, 1, 1000); // knee 40
    controller.top = 3;
    assertThat(controller.reserve(100)).isEqualTo(10);
    assertThat(controller.reserve(8)).isEqualTo(2);
    assertThat(controller.reserve(1)).isEqualTo(1);
    controller.top = 0;
    assertThat(controller.reserve(100)).as("one criticality present: no reserve").isZero();
  }

  @Test
  void aDrainThatFindsAHigherLatencyIsBelievedOnlyWhenTheNextOneConfirmsItAndByTenPercentAtMost() {
    AdaptiveController controller = controller(60);
    // Bound rounds for 10 s of engine time: the baseline is measured again (a drain).
    while (!controller.draining()) {
      round(controller, 2000, 30 * MS, true, 60, 1, 1000);
    }
    round(controller, 1000, 200 * MS, true, 40, 1, 1000); // settling: not used
    round(controller, 1000, 200 * MS, true, 40, 1, 1000); // measured: a queue left over
    assertThat(controller.draining()).isFalse();
    assertThat(controller.baseline).as("one drain's word").isEqualTo(20.0 * MS);
    while (!controller.draining()) { // the next drain comes two rounds later
      round(controller, 2000, 30 * MS, true, 60, 1, 1000);
    }
    round(controller, 1000, 200 * MS, true, 40, 1, 1000);
    round(controller, 1000, 200 * MS, true, 40, 1, 1000);
    assertThat(controller.baseline).as("confirmed, by 10 % at most").isCloseTo(22.0 * MS, within(1.0));
  }

  @Test
  void aDrainWhoseLatencyStillFallsSettlesOnInsteadOfMeasuringTheQueue() {
    AdaptiveController controller = controller(60);
    while (!controller.draining()) {
      round(controller, 2000, 30 * MS, true, 60, 1, 1000);
    }
    round(controller, 1000, 200 * MS, true, 40, 1, 1000); // settling
    round(controller, 1000, 100 * MS, true, 40, 1, 1000); // still falling: settles on
    assertThat(controller.draining()).isTrue();
    round(controller, 1000, 20 * MS, true, 40, 1, 1000); // still falling
    round(controller, 1000, 20 * MS, true, 40, 1, 1000); // flat: measured
    assertThat(controller.draining()).isFalse();
    assertThat(controller.baseline).isCloseTo(20.0 * MS, within(1.0));
  }
}
