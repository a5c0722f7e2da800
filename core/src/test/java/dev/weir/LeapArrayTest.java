package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class LeapArrayTest {

  private static final long SECOND = 1_000_000_000L;
  private static final long HALF = SECOND / 2;

  @Test
  void eventsOfOneBucketAccumulate() {
    LeapArray window = new LeapArray(2, SECOND);
    window.current(10 * SECOND).pass.add(3);
    window.current(10 * SECOND + HALF - 1).pass.add(4);

    assertThat(window.current(10 * SECOND)).isSameAs(window.current(10 * SECOND + 1));
    assertThat(window.sum(10 * SECOND + 1, b -> b.pass.sum())).isEqualTo(7);
  }

  @Test
  void windowSlidesBucketByBucket() {
    LeapArray window = new LeapArray(2, SECOND);
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
    LeapArray window = new LeapArray(2, SECOND);
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
    LeapArray window = new LeapArray(2, SECOND);
    long t0 = -3 * SECOND - 1;
    window.current(t0).pass.add(2);
    window.current(t0 + HALF).pass.add(3);
    assertThat(window.sum(t0 + HALF, b -> b.pass.sum())).isEqualTo(5);
  }

  @Test
  void smallBackwardJumpWritesToDetachedBucketWithoutThrowing() {
    LeapArray window = new LeapArray(2, SECOND);
    long t0 = 100 * SECOND;
    window.current(t0 + SECOND).pass.add(1); // slot 0 now holds the newer period
    StatBucket detached = window.current(t0); // older period of the same slot, within one window
    detached.pass.add(100);
    assertThat(window.sum(t0 + SECOND, b -> b.pass.sum())).isEqualTo(1);
  }

  @Test
  void largeBackwardJumpTakesTheSlotsOverSoStatisticsRecover() {
    LeapArray window = new LeapArray(2, SECOND);
    long t0 = 1_000 * SECOND;
    window.current(t0).pass.add(5);
    long back = t0 - 500 * SECOND;
    window.current(back).pass.add(2);
    assertThat(window.sum(back, b -> b.pass.sum())).isEqualTo(2);
  }

  @Test
  void minimumResponseTimeOfTheWindow() {
    LeapArray window = new LeapArray(2, SECOND);
    long t0 = 100 * SECOND;
    assertThat(window.minRtNanos(t0)).isEqualTo(Long.MAX_VALUE);
    window.current(t0).addRt(30);
    window.current(t0 + HALF).addRt(10);
    window.current(t0 + HALF).addRt(20);
    assertThat(window.minRtNanos(t0 + HALF)).isEqualTo(10);
    assertThat(window.minRtNanos(t0 + SECOND + HALF)).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void windowListsBucketsOldestFirst() {
    LeapArray window = new LeapArray(4, SECOND);
    long t0 = 100 * SECOND;
    window.current(t0).pass.add(1);
    window.current(t0 + 2 * SECOND / 4).pass.add(3);
    StatBucket[] buckets = window.window(t0 + 3 * SECOND / 4);
    assertThat(buckets[0].pass.sum()).isEqualTo(1);
    assertThat(buckets[1]).isNull();
    assertThat(buckets[2].pass.sum()).isEqualTo(3);
    assertThat(buckets[3]).isNull();
  }

  @Test
  void refusesAnIntervalThatDoesNotSplitEvenly() {
    assertThatThrownBy(() -> new LeapArray(3, 1_000)).isInstanceOf(IllegalArgumentException.class);
  }
}
