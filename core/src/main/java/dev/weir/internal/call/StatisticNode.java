package dev.weir.internal.call;

import static dev.weir.internal.call.Cells.BLOCKED;
import static dev.weir.internal.call.Cells.FAILED;
import static dev.weir.internal.call.Cells.PASSED;
import static dev.weir.internal.call.Cells.RT_NANOS;
import static dev.weir.internal.call.Cells.SUCCEEDED;

import dev.weir.internal.limit.RelatedTraffic;
import dev.weir.internal.time.LeapArray;
import dev.weir.rule.RuleKind;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.LongFunction;
import java.util.function.ToLongFunction;

/**
 * Live statistics of one slice of traffic: a resource ({@link ResourceNode}), or all inbound
 * traffic (the engine's {@link SystemProtection}).
 *
 * <h2>Counting once, in the thread's own cell</h2>
 * The hot path adds to cumulative totals only: passed when a call is admitted, refused (by rule
 * kind) when it is refused, succeeded or failed and its response time when it completes. Rates over
 * the last second are differences between those totals now and the snapshot of them in the oldest
 * bucket of the one-second {@link LeapArray}; a bucket takes its snapshot when the first event of
 * its period arrives, which {@link LeapArray#current} detects with two comparisons per call. So the windows
 * cost no write per call, and the totals that must be conserved are the very counters everything
 * else is derived from.
 *
 * <p>Each total is the sum of a node's {@linkplain Cells cells}: one row of counters per cell,
 * allocated on the first event counted in it, at most {@link Cells#COUNT} rows. The calling thread
 * names its cell ({@link CallStack}'s, found with the stack the call already has; a completion on
 * another thread takes that thread's shared cell): in an owned cell the thread is the only writer
 * and adds with a plain read and a release store, in a shared cell it adds atomically. A call on a
 * platform thread that owns its cell therefore makes no atomic operation here at all (it made three
 * with {@code LongAdder}s); see {@link Cells} for why no count is lost.
 *
 * <p>Readers sum the rows with acquire reads. A writer's stores are release stores, so a reader that
 * sees a completion also sees the pass that came before it in any cell (the completion happened
 * after the pass, on the same thread or after the call's state CAS): {@link StatBucket} relies on
 * that to read completions before passes.
 *
 * <p>Precision: an event that races with the snapshot at a period boundary may be counted in the
 * neighbouring period. Totals are exact; {@code active} is derived as
 * {@code passed - succeeded - failed} (in permits), exact whenever no call is between counters.
 * Rules never read these statistics to decide their own count: each rule owns its accounting.
 */
class StatisticNode implements RelatedTraffic {

  private static final long ONE_SECOND = 1_000_000_000L;
  private static final VarHandle COUNTER = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle ROW = MethodHandles.arrayElementVarHandle(long[][].class);

  /** The rows of the cells, by cell; null until something is counted in that cell. */
  private final long[][] rows = new long[Cells.COUNT][];
  /**
   * The sums when the node was last {@linkplain #reset() reset}, subtracted from every reading: a
   * reset writes no cell, so that an owned cell keeps its single writer.
   */
  private volatile long[] zero = new long[Cells.COUNTERS];
  final LeapArray<StatBucket> second;
  /** Buckets of the one-second window. */
  final int sampleCount;

  StatisticNode(int sampleCount) {
    this.sampleCount = sampleCount;
    this.second = new LeapArray<>(sampleCount, ONE_SECOND, snapshots());
  }

  /** Creates buckets that snapshot this node's totals. */
  final LongFunction<StatBucket> snapshots() {
    return index -> new StatBucket(index, this);
  }

  void onPass(long now, int count, int cell) {
    second.current(now);
    add(row(cell), cell, PASSED, count);
  }

  void onBlock(long now, int count, RuleKind kind, int cell) {
    second.current(now);
    add(row(cell), cell, BLOCKED + kind.ordinal(), count);
  }

  void onComplete(long now, long rtNanos, int count, boolean error, int cell) {
    StatBucket bucket = second.current(now);
    long[] row = row(cell);
    add(row, cell, error ? FAILED : SUCCEEDED, count);
    add(row, cell, RT_NANOS, rtNanos);
    bucket.addRt(rtNanos);
  }

  private long[] row(int cell) {
    long[] row = rows[cell];
    return row != null ? row : newRow(cell);
  }

  /** The first event counted in {@code cell}: makes its row, or takes the one a racing writer made. */
  private long[] newRow(int cell) {
    long[] fresh = new long[Cells.ROW_LENGTH];
    long[] raced = (long[]) ROW.compareAndExchange(rows, cell, (long[]) null, fresh);
    return raced == null ? fresh : raced;
  }

  private static void add(long[] row, int cell, int counter, long n) {
    int at = Cells.PAD + counter;
    if (Cells.owned(cell)) {
      COUNTER.setRelease(row, at, row[at] + n); // the one writer: see Cells
    } else {
      COUNTER.getAndAdd(row, at, n);
    }
  }

  /** The sum of {@code counter} over the cells, since the last reset. */
  private long total(int counter) {
    long[] since = zero;
    return sum(counter) - since[counter];
  }

  private long sum(int counter) {
    long sum = 0;
    for (int cell = 0; cell < Cells.COUNT; cell++) {
      long[] row = (long[]) ROW.getAcquire(rows, cell);
      if (row != null) {
        sum += (long) COUNTER.getAcquire(row, Cells.PAD + counter);
      }
    }
    return sum;
  }

  long passedTotal() {
    return total(PASSED);
  }

  long succeededTotal() {
    return total(SUCCEEDED);
  }

  long failedTotal() {
    return total(FAILED);
  }

  long rtNanosTotal() {
    return total(RT_NANOS);
  }

  /** All permits ever refused: one counter per kind, so a refusal costs one add; read in one pass over the cells. */
  long blockedTotal() {
    long[] since = zero;
    long sum = 0;
    for (int cell = 0; cell < Cells.COUNT; cell++) {
      long[] row = (long[]) ROW.getAcquire(rows, cell);
      if (row != null) {
        for (int counter = BLOCKED; counter < Cells.COUNTERS; counter++) {
          sum += (long) COUNTER.getAcquire(row, Cells.PAD + counter);
        }
      }
    }
    for (int counter = BLOCKED; counter < Cells.COUNTERS; counter++) {
      sum -= since[counter];
    }
    return sum;
  }

  long blockedBy(RuleKind kind) {
    return total(BLOCKED + kind.ordinal());
  }

  /** {@code counter} as counted in {@code cell} alone, before any reset; for tests. */
  long inCell(int cell, int counter) {
    long[] row = (long[]) ROW.getAcquire(rows, cell);
    return row == null ? 0 : (long) COUNTER.getAcquire(row, Cells.PAD + counter);
  }

  /** How many cells have a row: at most {@link Cells#COUNT}, however many threads counted here. */
  int cellsInUse() {
    int used = 0;
    for (int cell = 0; cell < Cells.COUNT; cell++) {
      if (ROW.getAcquire(rows, cell) != null) {
        used++;
      }
    }
    return used;
  }

  /**
   * Sets every count back to zero; see {@code Weir.reset()}. Records the sums as they are, which
   * readers subtract from then on: an event racing the reset is counted before it or after it.
   */
  void reset() {
    long[] sums = new long[Cells.COUNTERS];
    for (int counter = 0; counter < sums.length; counter++) {
      sums[counter] = sum(counter);
    }
    zero = sums;
    second.clear();
  }

  @Override
  public long passQps(long now) {
    return since(second, now, passedTotal(), b -> b.passed);
  }

  long blockQps(long now) {
    return since(second, now, blockedTotal(), b -> b.blocked);
  }

  long successQps(long now) {
    return since(second, now, succeededTotal(), b -> b.succeeded);
  }

  long exceptionQps(long now) {
    return since(second, now, failedTotal(), b -> b.failed);
  }

  /** Mean response time over the last second in milliseconds; 0 without completed calls. */
  double avgRtMillis(long now) {
    long completed = successQps(now) + exceptionQps(now);
    return completed == 0 ? 0 : since(second, now, rtNanosTotal(), b -> b.rtNanos) / 1e6 / completed;
  }

  /** Smallest response time over the last second in milliseconds; 0 without completed calls. */
  double minRtMillis(long now) {
    long min = second.min(now, b -> b.minRtNanos.get());
    return min == Long.MAX_VALUE ? 0 : min / 1e6;
  }

  /** The most calls completed successfully in one bucket of the last second. */
  long maxSuccessPerBucket(long now) {
    return second.maxDelta(now, succeededTotal(), b -> b.succeeded);
  }

  @Override
  public long activeCalls() {
    return Math.max(0L, passedTotal() - succeededTotal() - failedTotal());
  }

  /** {@code total} now minus its value at the start of the window ending at {@code now}. */
  static long since(LeapArray<StatBucket> window, long now, long total, ToLongFunction<StatBucket> base) {
    StatBucket oldest = window.oldest(now);
    return oldest == null ? 0 : Math.max(0L, total - base.applyAsLong(oldest));
  }
}
