package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class LeapArrayTest {

  private static final long SECOND = 1_000_000_000L;
  private static final long HALF = SECOND / 2;

  @Test
  void eventsOfOneBucketAccumulate() {
    LeapArray<StatBucket> window = new LeapArray<>(2, SECOND, StatBucket::new);
    window.current(10 * SECOND).pass.add(3);
    window.current(10 * SECOND + HALF - 1).pass.add(4);

    assertThat(window.current(10 * SECOND)).isSameAs(window.current(10 * SECOND + 1));
    assertThat(window.sum(10 * SECOND + 1, b -> b.pass.sum())).isEqualTo(7);
  }

  @Test
  void windowSlidesBucketByBucket() {
    LeapArray<StatBucket> window = new LeapArray<>(2, SECOND, StatBucket::new);
    long t0 = 100 * SECOND;
    window.current(t0).pass.add(5);
    window.current(t0 + HALF).pass.add(7);

    assertThat(window.sum(t0 + HALF, b -> b.pass.sum())).isEqualTo(12);
    // One bucket later the first bucket has left the window, the second has not.
    assertThat(window.sum(t0 + SECOND, b -> b.pass.sum())).isEqualTo(7);
    assertThat(window.sum(t0 + SECOND + HALF, b -> b.pass.sum())).isZero();
  }

  @Test
  void staleBucketIsReplacedNotReused() {
    LeapArray<StatBucket> window = new LeapArray<>(2, SECOND, StatBucket::new);
    long t0 = 100 * SECOND;
    StatBucket old = window.current(t0);
    old.pass.add(9);

    StatBucket fresh = window.current(t0 + SECOND); // same slot, next period
    assertThat(fresh).isNotSameAs(old);
    assertThat(fresh.pass.sum()).isZero();
    assertThat(old.pass.sum()).as("a replaced bucket is left intact for a late writer").isEqualTo(9);
    assertThat(window.sum(t0 + SECOND, b -> b.pass.sum())).isZero();
  }

  @Test
  void negativeTickerReadingsWork() {
    LeapArray<StatBucket> window = new LeapArray<>(2, SECOND, StatBucket::new);
    long t0 = -3 * SECOND - 1;
    window.current(t0).pass.add(2);
    window.current(t0 + HALF).pass.add(3);
    assertThat(window.sum(t0 + HALF, b -> b.pass.sum())).isEqualTo(5);
  }

  @Test
  void smallBackwardJumpWritesToDetachedBucketWithoutThrowing() {
    LeapArray<StatBucket> window = new LeapArray<>(2, SECOND, StatBucket::new);
    long t0 = 100 * SECOND;
    window.current(t0 + SECOND).pass.add(1); // slot 0 now holds the newer period
    StatBucket detached = window.current(t0); // older period of the same slot, within one window
    detached.pass.add(100);
    assertThat(window.sum(t0 + SECOND, b -> b.pass.sum())).isEqualTo(1);
  }

  @Test
  void largeBackwardJumpTakesTheSlotsOverSoStatisticsRecover() {
    LeapArray<StatBucket> window = new LeapArray<>(2, SECOND, StatBucket::new);
    long t0 = 1_000 * SECOND;
    window.current(t0).pass.add(5);
    long back = t0 - 500 * SECOND;
    window.current(back).pass.add(2);
    assertThat(window.sum(back, b -> b.pass.sum())).isEqualTo(2);
  }

  @Test
  void minimumResponseTimeOfTheWindow() {
    LeapArray<StatBucket> window = new LeapArray<>(2, SECOND, StatBucket::new);
    long t0 = 100 * SECOND;
    assertThat(window.min(t0, b -> b.minRtNanos.get())).isEqualTo(Long.MAX_VALUE);
    window.current(t0).addRt(30);
    window.current(t0 + HALF).addRt(10);
    window.current(t0 + HALF).addRt(20);
    assertThat(window.min(t0 + HALF, b -> b.minRtNanos.get())).isEqualTo(10);
    assertThat(window.min(t0 + SECOND + HALF, b -> b.minRtNanos.get())).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void windowListsBucketsOldestFirst() {
    LeapArray<StatBucket> window = new LeapArray<>(4, SECOND, StatBucket::new);
    long t0 = 100 * SECOND;
    window.current(t0).pass.add(1);
    window.current(t0 + 2 * SECOND / 4).pass.add(3);
    List<StatBucket> buckets = window.window(t0 + 3 * SECOND / 4);
    assertThat(buckets.get(0).pass.sum()).isEqualTo(1);
    assertThat(buckets.get(1)).isNull();
    assertThat(buckets.get(2).pass.sum()).isEqualTo(3);
    assertThat(buckets.get(3)).isNull();
  }

  @Test
  void refusesAnIntervalThatDoesNotSplitEvenly() {
    assertThatThrownBy(() -> new LeapArray<>(3, 1_000, StatBucket::new)).isInstanceOf(IllegalArgumentException.class);
  }
}
