package dev.weir.internal.cluster;

import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.FallbackReason;
import java.lang.System.Logger.Level;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The log of a {@link ClusterGuard}'s spells of falling back: one WARN when cluster-mode calls start
 * being decided by the fallback (naming the store, the fallback in force and the error), one INFO
 * when the store decides again. Never a line per call.
 *
 * <p>A spell starts at the first call that falls back, for any reason (an error, a missed deadline,
 * the in-flight bound; the breaker opens only later, after failures in a row, and a user who makes a
 * call or two against a dead store sees the WARN at once). It ends when the store answers a call
 * and either (1) that answer closed the breaker (a probe: at most once per open period, since the
 * breaker stays open that long), or (2) no call has fallen back for one open period before the
 * call's reading. So a store whose calls fail and succeed by turns (a slow store missing every
 * other deadline) stays in its spell instead of logging a pair per call: the lines are at most one
 * WARN and one INFO per open period, whatever the traffic.
 *
 * <p>Readings come out of order (see {@code EngineClock}): a call whose reading is older than the
 * end of the last spell fell back in that spell (its caller decided before the store answered
 * again) and starts no new one; an answer to a call whose reading is older than the last fallback
 * says nothing about the store now and ends nothing. The state is one flag changed by CAS, so of
 * the calls that see a transition one logs it; the two readings beside it are hints written by
 * plain volatile stores, where a lost update only delays the end of a spell.
 */
final class FallbackLog {

  private final System.Logger log;
  private final Supplier<String> store;
  private final ClusterFallback fallback;
  private final long openNanos;
  private final Function<FallbackReason, String> cause;

  /** Whether a spell is on: calls fell back and the store has not decided again since. */
  private final AtomicBoolean falling = new AtomicBoolean();
  /** The reading of the latest call that fell back (within a spell). */
  private volatile long lastFallback;
  /** The reading of the call that started the spell. */
  private volatile long startedAt;
  /** The reading at which the last spell ended (at first: the reading of the guard's creation). */
  private volatile long endedAt;

  FallbackLog(System.Logger log, Supplier<String> store, ClusterFallback fallback, long openNanos,
      Function<FallbackReason, String> cause, long createdAt) {
    this.endedAt = createdAt;
    this.log = log;
    this.store = store;
    this.fallback = fallback;
    this.openNanos = openNanos;
    this.cause = cause;
  }

  /** A call whose reading is {@code now} was decided by the fallback for {@code reason}. */
  void fellBack(FallbackReason reason, long now) {
    if (falling.get()) {
      if (now - lastFallback > 0) {
        lastFallback = now;
      }
      return;
    }
    if (now - endedAt < 0) {
      return; // decided before the store answered again: part of the spell that ended
    }
    lastFallback = now;
    if (falling.compareAndSet(false, true)) {
      startedAt = now;
      log.log(Level.WARNING, "Cluster store {0} is not deciding ({1}): cluster-mode rules fall back to {2} "
          + "until it answers again", store.get(), cause.apply(reason), describe(fallback));
    }
  }

  /**
   * The store answered a call whose reading is {@code start}; {@code closedBreaker}: the answer was
   * the probe that closed the breaker.
   */
  void answered(long start, boolean closedBreaker) {
    if (!falling.get() || !(closedBreaker || start - lastFallback >= openNanos)) {
      return;
    }
    if (falling.compareAndSet(true, false)) {
      endedAt = start;
      log.log(Level.INFO, "Cluster store {0} answers again: cluster-mode rules are counted there again "
          + "(they fell back to {1} for {2} ms)", store.get(), fallback.name().toLowerCase(Locale.ROOT),
          Long.toString(Math.max(0, TimeUnit.NANOSECONDS.toMillis(start - startedAt))));
    }
  }

  /** Whether a spell is on; for tests. */
  boolean falling() {
    return falling.get();
  }

  /** The fallback as the WARN names it: the property value and what it does. */
  static String describe(ClusterFallback fallback) {
    String name = fallback.name().toLowerCase(Locale.ROOT);
    return switch (fallback) {
      case LOCAL -> name + " (each instance counts the rule's count alone)";
      case SHARE -> name + " (each instance counts count / live instances alone)";
      case ALLOW -> name + " (every call is admitted)";
      case DENY -> name + " (every call is refused)";
    };
  }
}
