package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link CostEstimate}: its buckets, its percentile, and that it follows a change in costs. */
class CostEstimateTest {

  @Test
  void everyCostLiesInItsBucketAndItsEdgeIsAtMostAQuarterAbove() {
    SplittableRandom random = new SplittableRandom(39);
    for (int i = 0; i < 100_000; i++) {
      long cost = random.nextLong(1, Long.MAX_VALUE) >>> random.nextInt(63);
      long edge = CostEstimate.upperEdge(CostEstimate.bucketOf(cost));
      assertThat(edge).as("cost %d", cost).isGreaterThanOrEqualTo(cost);
      assertThat((double) edge).as("cost %d", cost).isLessThanOrEqualTo(cost * 1.25 + 1);
      assertThat(CostEstimate.bucketOf(edge)).isEqualTo(CostEstimate.bucketOf(cost));
    }
    assertThat(CostEstimate.upperEdge(CostEstimate.bucketOf(Long.MAX_VALUE))).isEqualTo(Long.MAX_VALUE);
    assertThat(CostEstimate.bucketOf(Long.MAX_VALUE)).isLessThan(CostEstimate.BUCKETS);
    assertThat(CostEstimate.upperEdge(CostEstimate.bucketOf(0))).isZero();
  }

  @Test
  void theEstimateIsTheHighPercentileAndFollowsAShift() {
    CostEstimate estimate = new CostEstimate();
    assertThat(estimate.estimate(0.95, 7)).isEqualTo(7);
    for (int i = 0; i < 1_000; i++) {
      estimate.record(i < 900 ? 10 : 500); // p95 is in the 10 % at 500
    }
    assertThat(estimate.estimate(0.95, 7)).isEqualTo(511);
    assertThat(estimate.estimate(0.5, 7)).isEqualTo(11);
    for (int i = 0; i < 4 * (int) CostEstimate.HALF_LIFE; i++) {
      estimate.record(10);
    }
    assertThat(estimate.estimate(0.95, 7)).as("the old 500s halved away").isEqualTo(11);
  }
}
