package dev.weir.internal.call;

import dev.weir.internal.limit.RelatedTraffic;
import dev.weir.internal.time.LeapArray;
import dev.weir.rule.RuleKind;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongFunction;

/**
 * Live statistics of one slice of traffic: a resource ({@link ResourceNode}), or all inbound
 * traffic (the engine's {@link SystemProtection}).
 *
 * <h2>Counting once</h2>
 * The hot path adds to cumulative {@link LongAdder}s only: one add when a call is admitted, two
 * when it completes. Rates over the last second are differences between those totals now and the
 * snapshot of them in the oldest bucket of the one-second {@link LeapArray}; a bucket takes its
 * snapshot when the first event of its period arrives, which {@link #window} detects with two
 * comparisons per call. So the windows cost no atomic operation per call, and the totals that must
 * be conserved are the very counters everything else is derived from.
 *
 * <p>Precision: an event that races with the snapshot at a period boundary may be counted in the
 * neighbouring period. Totals are exact; {@code active} is derived as
 * {@code passed - succeeded - failed} (in permits), exact whenever no call is between counters.
 * Rules never read these statistics to decide their own count: each rule owns its accounting.
 */
class StatisticNode implements RelatedTraffic {

  private static final long ONE_SECOND = 1_000_000_000L;

  final LongAdder passed = new LongAdder();
  /** Refused permits by the kind of the refusing rule; their sum is the total refused. */
  private final LongAdder[] blocked = new LongAdder[RuleKind.values().length];
  final LongAdder succeeded = new LongAdder();
  final LongAdder failed = new LongAdder();
  final LongAdder rtNanosTotal = new LongAdder();
  final LeapArray<StatBucket> second;
  /** Buckets of the one-second window. */
  final int sampleCount;

  StatisticNode(int sampleCount) {
    this.sampleCount = sampleCount;
    for (int i = 0; i < blocked.length; i++) {
      blocked[i] = new LongAdder();
    }
    this.second = new LeapArray<>(sampleCount, ONE_SECOND, snapshots());
  }

  /** Creates buckets that snapshot this node's totals. */
  final LongFunction<StatBucket> snapshots() {
    return index -> new StatBucket(index, this);
  }

  void onPass(long now, int count) {
    second.current(now);
    passed.add(count);
  }

  void onBlock(long now, int count, RuleKind kind) {
    second.current(now);
    blocked[kind.ordinal()].add(count);
  }

  /** All permits ever refused: one adder per kind, so a refusal costs one atomic add. */
  long blockedTotal() {
    long sum = 0;
    for (LongAdder adder : blocked) {
      sum += adder.sum();
    }
    return sum;
  }

  long blockedBy(RuleKind kind) {
    return blocked[kind.ordinal()].sum();
  }

  void onComplete(long now, long rtNanos, int count, boolean error) {
    StatBucket bucket = second.current(now);
    (error ? failed : succeeded).add(count);
    rtNanosTotal.add(rtNanos);
    bucket.addRt(rtNanos);
  }

  /** Sets every count back to zero; see {@code Weir.reset()}. */
  void reset() {
    passed.reset();
    for (LongAdder adder : blocked) {
      adder.reset();
    }
    succeeded.reset();
    failed.reset();
    rtNanosTotal.reset();
    second.clear();
  }

  @Override
  public long passQps(long now) {
    return since(second, now, passed.sum(), b -> b.passed);
  }

  long blockQps(long now) {
    return since(second, now, blockedTotal(), b -> b.blocked);
  }

  long successQps(long now) {
    return since(second, now, succeeded.sum(), b -> b.succeeded);
  }

  long exceptionQps(long now) {
    return since(second, now, failed.sum(), b -> b.failed);
  }

  /** Mean response time over the last second in milliseconds; 0 without completed calls. */
  double avgRtMillis(long now) {
    long completed = successQps(now) + exceptionQps(now);
    return completed == 0 ? 0 : since(second, now, rtNanosTotal.sum(), b -> b.rtNanos) / 1e6 / completed;
  }

  /** Smallest response time over the last second in milliseconds; 0 without completed calls. */
  double minRtMillis(long now) {
    long min = second.min(now, b -> b.minRtNanos.get());
    return min == Long.MAX_VALUE ? 0 : min / 1e6;
  }

  /** The most calls completed successfully in one bucket of the last second. */
  long maxSuccessPerBucket(long now) {
    return second.maxDelta(now, succeeded.sum(), b -> b.succeeded);
  }

  @Override
  public long activeCalls() {
    return Math.max(0L, passed.sum() - succeeded.sum() - failed.sum());
  }

  /** {@code total} now minus its value at the start of the window ending at {@code now}. */
  static long since(LeapArray<StatBucket> window, long now, long total, java.util.function.ToLongFunction<StatBucket> base) {
    StatBucket oldest = window.oldest(now);
    return oldest == null ? 0 : Math.max(0L, total - base.applyAsLong(oldest));
  }
}
