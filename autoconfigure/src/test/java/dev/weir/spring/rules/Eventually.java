package dev.weir.spring.rules;

import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for the watcher thread to have done something: polls a condition until a deadline. */
final class Eventually {

  static final Duration DEADLINE = Duration.ofSeconds(10);

  private Eventually() {
  }

  /** Returns once {@code condition} holds; fails after {@link #DEADLINE}. Ends: the loop is bounded by the deadline. */
  static void await(String what, BooleanSupplier condition) {
    long end = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > end) {
        fail("not within " + DEADLINE + ": " + what);
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        fail("interrupted waiting for " + what);
      }
    }
  }

  /**
   * Returns once the watcher has finished the check it is in: a check holds the rule sources' lock
   * from reading a file to the last resource it replaces and the source's status, one resource
   * after another, and this check of the same files waits for that lock, finds them as last read
   * and changes nothing. Call it after waiting for one effect of an edit, before asserting the
   * others: they are then in place, or never will be.
   */
  static void settled(RuleSources sources) {
    sources.check();
  }

  /** Returns true if {@code condition} still does not hold after {@code quiet}: for "nothing changed". */
  static boolean stillFalseAfter(Duration quiet, BooleanSupplier condition) {
    long end = System.nanoTime() + quiet.toNanos();
    while (System.nanoTime() < end) {
      if (condition.getAsBoolean()) {
        return false;
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }
}
