package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.internal.time.LeapArray;
import java.util.List;
import org.junit.jupiter.api.Test;

class LeapArrayTest {

  /** A bucket with one counter, as the breakers use; statistics buckets hold snapshots instead. */
  static final class Counted extends LeapArray.Bucket {
    final java.util.concurrent.atomic.LongAdder pass = new java.util.concurrent.atomic.LongAdder();
    final java.util.concurrent.atomic.AtomicLong minRtNanos = new java.util.concurrent.atomic.AtomicLong(Long.MAX_VALUE);

    Counted(long index) {
      super(index);
    }

    void addRt(long nanos) {
      minRtNanos.accumulateAndGet(nanos, Math::min);
    }
  }

  private static final long SECOND = 1_000_000_000L;
  private static final long HALF = SECOND / 2;

  @Test
  void eventsOfOneBucketAccumulate() {
    LeapArray<Counted> window = new LeapArray<>(2, SECOND, Counted::new);
    window.current(10 * SECOND).pass.add(3);
    window.current(10 * SECOND + HALF - 1).pass.add(4);

    assertThat(window.current(10 * SECOND)).isSameAs(window.current(10 * SECOND + 1));
    assertThat(window.sum(10 * SECOND + 1, b -> b.pass.sum())).isEqualTo(7);
  }

  @Test
  void windowSlidesBucketByBucket() {
    LeapArray<Counted> window = new LeapArray<>(2, SECOND, Counted::new);
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
    LeapArray<Counted> window = new LeapArray<>(2, SECOND, Counted::new);
    long t0 = 100 * SECOND;
    Counted old = window.current(t0);
    old.pass.add(9);

    Counted fresh = window.current(t0 + SECOND); // same slot, next period
    assertThat(fresh).isNotSameAs(old);
    assertThat(fresh.pass.sum()).isZero();
    assertThat(old.pass.sum()).as("a replaced bucket is left intact for a late writer").isEqualTo(9);
    assertThat(window.sum(t0 + SECOND, b -> b.pass.sum())).isZero();
  }

  @Test
  void negativeTickerReadingsWork() {
    LeapArray<Counted> window = new LeapArray<>(2, SECOND, Counted::new);
    long t0 = -3 * SECOND - 1;
    window.current(t0).pass.add(2);
    window.current(t0 + HALF).pass.add(3);
    assertThat(window.sum(t0 + HALF, b -> b.pass.sum())).isEqualTo(5);
  }

  @Test
  void smallBackwardJumpWritesToDetachedBucketWithoutThrowing() {
    LeapArray<Counted> window = new LeapArray<>(2, SECOND, Counted::new);
    long t0 = 100 * SECOND;
    window.current(t0 + SECOND).pass.add(1); // slot 0 now holds the newer period
    Counted detached = window.current(t0); // older period of the same slot, within one window
    detached.pass.add(100);
    assertThat(window.sum(t0 + SECOND, b -> b.pass.sum())).isEqualTo(1);
  }

  @Test
  void largeBackwardJumpTakesTheSlotsOverSoStatisticsRecover() {
    LeapArray<Counted> window = new LeapArray<>(2, SECOND, Counted::new);
    long t0 = 1_000 * SECOND;
    window.current(t0).pass.add(5);
    long back = t0 - 500 * SECOND;
    window.current(back).pass.add(2);
    assertThat(window.sum(back, b -> b.pass.sum())).isEqualTo(2);
  }

  @Test
  void minimumResponseTimeOfTheWindow() {
    LeapArray<Counted> window = new LeapArray<>(2, SECOND, Counted::new);
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
    LeapArray<Counted> window = new LeapArray<>(4, SECOND, Counted::new);
    long t0 = 100 * SECOND;
    window.current(t0).pass.add(1);
    window.current(t0 + 2 * SECOND / 4).pass.add(3);
    List<Counted> buckets = window.window(t0 + 3 * SECOND / 4);
    assertThat(buckets.get(0).pass.sum()).isEqualTo(1);
    assertThat(buckets.get(1)).isNull();
    assertThat(buckets.get(2).pass.sum()).isEqualTo(3);
    assertThat(buckets.get(3)).isNull();
  }

  @Test
  void refusesAnIntervalThatDoesNotSplitEvenly() {
    assertThatThrownBy(() -> new LeapArray<>(3, 1_000, Counted::new)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void currentBucketIsFoundAgainWithoutLookingItUp() {
    LeapArray<Counted> window = new LeapArray<>(2, SECOND, Counted::new);
    long t0 = 100 * SECOND;
    Counted first = window.current(t0 + 1);
    assertThat(window.current(t0 + HALF - 1)).isSameAs(first);
    Counted second = window.current(t0 + HALF);
    assertThat(second).isNotSameAs(first);
    assertThat(window.current(t0 + 2)).as("back into the first period").isSameAs(first);
  }

  @Test
  void oldestAndMaxDeltaReadSnapshotsInTimeOrder() {
    StatisticNode node = new StatisticNode(2);
    long t0 = 100 * SECOND;
    int cell = Cells.OWNED; // a shared cell: any thread may write it
    node.onPass(t0, 3, cell);
    node.onPass(t0 + HALF, 5, cell);
    node.onComplete(t0 + HALF, 10, 4, false, cell);
    assertThat(node.passQps(t0 + HALF)).isEqualTo(8);
    assertThat(node.passQps(t0 + SECOND)).as("first period left the window").isEqualTo(5);
    assertThat(node.maxSuccessPerBucket(t0 + HALF)).isEqualTo(4);
    assertThat(node.activeCalls()).isEqualTo(4);
    assertThat(node.passQps(t0 + 5 * SECOND)).isZero();
  }
}
