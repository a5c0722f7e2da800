package dev.weir;

import java.util.concurrent.atomic.LongAdder;

/**
 * Live statistics of one slice of traffic: a resource, a (context, resource) pair, a
 * (resource, origin) pair, or all inbound traffic. Keeps a one-second {@link LeapArray} for rates
 * and cumulative adders for totals. Totals are conserved by construction: every admitted call adds
 * one to {@code passed} before it can complete, and exactly one of {@code succeeded}/{@code failed}
 * when it completes, so {@code succeeded + failed + active == passed} whenever no call is in flight
 * between two adders.
 */
class StatisticNode {

  private static final long ONE_SECOND = 1_000_000_000L;

  final LeapArray<StatBucket> second;
  final LongAdder passed = new LongAdder();
  final LongAdder blocked = new LongAdder();
  final LongAdder succeeded = new LongAdder();
  final LongAdder failed = new LongAdder();
  final LongAdder rtNanosTotal = new LongAdder();
  final LongAdder active = new LongAdder();

  StatisticNode(int sampleCount) {
    this.second = new LeapArray<>(sampleCount, ONE_SECOND, StatBucket::new);
  }

  void onPass(long now, int count) {
    second.current(now).pass.add(count);
    passed.add(count);
    active.increment();
  }

  void onBlock(long now, int count) {
    second.current(now).block.add(count);
    blocked.add(count);
  }

  void onComplete(long now, long rtNanos, int count, boolean error) {
    StatBucket bucket = second.current(now);
    if (error) {
      bucket.exception.add(count);
      failed.add(count);
    } else {
      bucket.success.add(count);
      succeeded.add(count);
    }
    bucket.addRt(rtNanos);
    rtNanosTotal.add(rtNanos);
    active.decrement();
  }

  long passQps(long now) {
    return second.sum(now, b -> b.pass.sum());
  }

  long blockQps(long now) {
    return second.sum(now, b -> b.block.sum());
  }

  long successQps(long now) {
    return second.sum(now, b -> b.success.sum());
  }

  long exceptionQps(long now) {
    return second.sum(now, b -> b.exception.sum());
  }

  /** Mean response time over the last second in milliseconds; 0 without completed calls. */
  double avgRtMillis(long now) {
    long completed = second.sum(now, b -> b.success.sum() + b.exception.sum());
    return completed == 0 ? 0 : second.sum(now, b -> b.rtNanos.sum()) / 1e6 / completed;
  }

  /** Smallest response time over the last second in milliseconds; 0 without completed calls. */
  double minRtMillis(long now) {
    long min = second.min(now, b -> b.minRtNanos.get());
    return min == Long.MAX_VALUE ? 0 : min / 1e6;
  }

  public long activeCalls() {
    return active.sum();
  }
}
