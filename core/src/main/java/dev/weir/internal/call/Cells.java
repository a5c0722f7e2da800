package dev.weir.internal.call;

import dev.weir.rule.RuleKind;
import java.lang.ref.WeakReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.jspecify.annotations.Nullable;

/**
 * Which cell of a {@link StatisticNode} a thread counts in, and who else may write it.
 *
 * <p>A node's counts live in {@link #COUNT} cells (rows of {@link #COUNTERS} counters), whatever the
 * number of threads:
 * <ul>
 *   <li>cells {@code 0 .. OWNED-1} are <em>owned</em>: each belongs to one live platform thread at a
 *       time, across every engine of the JVM, and only that thread writes it, with a plain
 *       read and a release store (no lock, no CAS);
 *   <li>cells {@code OWNED .. COUNT-1} are <em>shared</em>: virtual threads, platform threads that
 *       found no free owned cell, and threads completing a call another thread opened count there,
 *       in the cell of their hashed thread id, with an atomic add ({@code lock xadd}: it never
 *       fails, so never retries).
 * </ul>
 * Both bounds are {@code nextPowerOfTwo(2 * availableProcessors)}, between 4 and 64: 16 and 16 on an
 * 8-core machine. Memory is therefore bounded per node by {@link #COUNT} rows, never by the threads
 * ever seen: 10^5 virtual threads share the shared cells.
 *
 * <h2>Why no count is lost</h2>
 * A plain read-modify-write loses updates when two threads run it on the same cell. Here an owned
 * cell has one writer at any time: a thread gets an owned cell only by a CAS on this table's slot
 * (so two live threads never hold the same one), keeps it until it dies, and a later thread takes
 * it over only after seeing its owner dead ({@code !isAlive()}, which happens-after everything the
 * owner did; or its {@code Thread} collected, which cannot happen before it ended). So the new owner
 * reads the old owner's last values and goes on from them: a dead thread's counts are neither lost
 * nor copied, and the counts of all the threads that ever held the cell add up in it. Writers of a
 * shared cell add atomically. {@code Weir.reset()} writes no cell: it records the sums as they are
 * and readers subtract them (see {@link StatisticNode#reset}), so the single writer stays single.
 *
 * <p>The table holds its owners weakly: a dead thread's {@code Thread} (and its context class
 * loader) is not kept for the sake of a cell. A platform thread claims its cell when its
 * {@link CallStack} is made, once per engine; it finds its own slot again (a scan of at most 64).
 */
final class Cells {

  /** Counter offsets in a row: passed, succeeded, failed, response nanos, then refused per rule kind. */
  static final int PASSED = 0;
  static final int SUCCEEDED = 1;
  static final int FAILED = 2;
  static final int RT_NANOS = 3;
  static final int BLOCKED = 4;
  static final int COUNTERS = BLOCKED + RuleKind.values().length;

  /**
   * Longs before and after a row's counters: 64 bytes each side, a cache line, so that the counters
   * of two rows (written by two threads) never share one, even where a copying collection has put
   * the rows next to each other.
   */
  static final int PAD = 8;
  static final int ROW_LENGTH = PAD + COUNTERS + PAD;

  static final int OWNED = bound(Runtime.getRuntime().availableProcessors());
  static final int SHARED = OWNED;
  static final int COUNT = OWNED + SHARED;

  /** The JVM's owners of owned cells. */
  static final Cells OWNERS = new Cells(OWNED);

  private final AtomicReferenceArray<@Nullable WeakReference<Thread>> owners;

  /** A table of {@code owned} cells, at most {@link #OWNED}; the JVM's is {@link #OWNERS}. */
  Cells(int owned) {
    if (owned > OWNED) {
      throw new IllegalArgumentException("at most " + OWNED + " owned cells, not " + owned);
    }
    this.owners = new AtomicReferenceArray<>(owned);
  }

  static int bound(int processors) {
    int wanted = Math.max(4, Math.min(64, 2 * processors));
    return Integer.highestOneBit(wanted - 1) << 1; // the next power of two
  }

  /** The cell of a new {@link CallStack}'s {@code owner}: its own when it can have one, else a shared one. */
  static int of(Thread owner, boolean virtual) {
    if (virtual) {
      return shared(owner); // owning one would take a cell per live virtual thread
    }
    int owned = OWNERS.claim(owner);
    return owned >= 0 ? owned : shared(owner);
  }

  /** The shared cell of {@code thread}: its thread id, hashed (ids are sequential). */
  @SuppressWarnings("deprecation") // getId(): threadId() is JDK 19+, this is compiled for 17
  static int shared(Thread thread) {
    int hash = (int) ((thread.getId() * 0x9E3779B97F4A7C15L) >>> 32);
    return OWNED + (hash & (SHARED - 1));
  }

  /** Whether {@code cell} has one writer, who writes it without an atomic operation. */
  static boolean owned(int cell) {
    return cell < OWNED;
  }

  /**
   * The owned cell of {@code thread}: the one it holds already, else the first free one or one whose
   * owner has died, taken by CAS; -1 when every cell has a live owner.
   */
  int claim(Thread thread) {
    int length = owners.length();
    for (int i = 0; i < length; i++) {
      WeakReference<Thread> held = owners.get(i);
      if (held != null && held.get() == thread) {
        return i;
      }
    }
    WeakReference<Thread> mine = null;
    for (int i = 0; i < length; i++) {
      WeakReference<Thread> held = owners.get(i);
      Thread owner = held == null ? null : held.get();
      if (owner == null || !owner.isAlive()) {
        if (mine == null) {
          mine = new WeakReference<>(thread);
        }
        if (owners.compareAndSet(i, held, mine)) {
          return i;
        }
      }
    }
    return -1;
  }

  /** Puts {@code owner} in slot {@code cell}, as a claim would; for tests that interleave claims. */
  void hold(int cell, WeakReference<Thread> owner) {
    owners.set(cell, owner);
  }

  /** How many cells have a live owner; for tests. */
  int liveOwners() {
    int live = 0;
    for (int i = 0; i < owners.length(); i++) {
      WeakReference<Thread> held = owners.get(i);
      Thread owner = held == null ? null : held.get();
      if (owner != null && owner.isAlive()) {
        live++;
      }
    }
    return live;
  }
}
