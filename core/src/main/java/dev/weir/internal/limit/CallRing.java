package dev.weir.internal.limit;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The outcomes of the last {@code size} completed calls, for a count-based breaker
 * ({@code window: N calls}): a ring of outcomes and three running counts over it.
 *
 * <p>A completion takes the next slot by {@code getAndIncrement} and swaps its outcome in with
 * {@code getAndSet}, then corrects the counts by what it replaced. Each swap sees the value it
 * replaces exactly once, so after every completion has made its corrections the counts are exactly
 * those of the ring, however completions interleave (two completions a whole ring apart may swap
 * the same slot: each still subtracts what it took out). Counts read meanwhile may lag by the
 * completions still correcting, at most one call per thread; a completion reads them after its
 * own correction, so of two completions racing the later reader judges both.
 */
final class CallRing {

  private static final int CALL = 1;
  private static final int SLOW = 2;
  private static final int FAILED = 4;

  private final int size;
  private final AtomicIntegerArray outcomes;
  private final AtomicLong next = new AtomicLong();
  private final AtomicLong total = new AtomicLong();
  private final AtomicLong slow = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();

  CallRing(int size) {
    this.size = size;
    this.outcomes = new AtomicIntegerArray(size);
  }

  void add(boolean isSlow, boolean failed) {
    int slot = (int) Math.floorMod(next.getAndIncrement(), (long) size);
    int outcome = CALL | (isSlow ? SLOW : 0) | (failed ? FAILED : 0);
    int old = outcomes.getAndSet(slot, outcome);
    if ((old & CALL) == 0) {
      total.incrementAndGet();
    }
    adjust(slow, old, outcome, SLOW);
    adjust(errors, old, outcome, FAILED);
  }

  private static void adjust(AtomicLong count, int old, int outcome, int flag) {
    int delta = ((outcome & flag) != 0 ? 1 : 0) - ((old & flag) != 0 ? 1 : 0);
    if (delta != 0) {
      count.addAndGet(delta);
    }
  }

  /** Counts {@code total, slow, errors} recounted from the ring itself; for tests, with no completion running. */
  long[] recount() {
    long[] counts = new long[3];
    for (int i = 0; i < size; i++) {
      int outcome = outcomes.get(i);
      counts[0] += outcome & CALL;
      counts[1] += (outcome & SLOW) != 0 ? 1 : 0;
      counts[2] += (outcome & FAILED) != 0 ? 1 : 0;
    }
    return counts;
  }

  long total() {
    return total.get();
  }

  long slow() {
    return slow.get();
  }

  long errors() {
    return errors.get();
  }
}
