package dev.weir.spring.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weir.KeyExpressions.ParamKey;
import dev.weir.spring.web.Route;
import example.keys.Order;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The keys of the hot path allocate nothing after warm-up: {@code #apiKey} (an array read),
 * {@code #p0.customerId} (a String property, by its declared final type and by a type known only
 * per call: the inline cache), and {@code #request.getHeader('X-Api-Key')} (an interface call on
 * the view). Measured with the thread's allocated bytes ({@code com.sun.management.ThreadMXBean}),
 * deterministic where a profiler samples: the bytes of {@value #CALLS} evaluations, less those of
 * an empty loop of the same length (the measurement's own constant), must be none (in one of
 * {@value #WINDOWS} windows, see there).
 */
class KeyAllocationTests {

  static final int CALLS = 100_000;
  static final int WARM_UP = 300_000;
  /**
   * Windows measured at most: the first with no more bytes than the empty loop passes. A key that
   * allocated per call would show at least 16 bytes per call in every window; what a single window
   * may show besides (88 and 120 bytes were seen once, in the whole module's run) is a one-off of
   * the JVM in that window (the JIT replacing code, a class loaded), not the key's.
   */
  static final int WINDOWS = 5;

  private final KeyLanguage keys = new KeyLanguage(Map.of(
      "place", new KeyArguments(List.of("order", "apiKey"), List.of(Order.class, String.class)),
      "any", new KeyArguments(List.of("thing", "apiKey"), List.of(Object.class, String.class)),
      "route", new KeyArguments(Route.ARGUMENT_NAMES, Route.ARGUMENT_TYPES))::get);

  @ParameterizedTest
  @CsvSource({"place, #apiKey", "place, #p0.customerId", "any, #thing.customerId", "any, #p0.customerId()",
      "route, #request.getHeader('X-Api-Key')", "route, #request.getHeader('X-Api-Key') ?: 'none'"})
  void aHotKeyAllocatesNothingAfterWarmUp(String resource, String expression) {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadAllocatedMemorySupported(), "this JVM does not count a thread's allocations");
    threads.setThreadAllocatedMemoryEnabled(true);
    long thread = Thread.currentThread().getId();

    String expected = resource.equals("route") ? "key-1" : expression.contains("apiKey") ? "k-1" : "c-7";
    Object[] args = resource.equals("route")
        ? new Object[] {new FixedView(Map.of("X-Api-Key", "key-1"), Map.of()), "alice"}
        : new Object[] {Order.of("c-7"), "k-1"};
    ParamKey key = keys.compile(resource, expression);
    assertThat(key.keyOf(args)).isEqualTo(expected);

    int mismatches = run(key, args, expected, WARM_UP);
    long emptyLoop = allocated(threads, thread, null, args, expected);
    long[] windows = new long[WINDOWS];
    int measured = 0;
    long fewest = Long.MAX_VALUE;
    while (measured < WINDOWS && fewest > emptyLoop) {
      long before = threads.getThreadAllocatedBytes(thread);
      mismatches += run(key, args, expected, CALLS);
      windows[measured] = threads.getThreadAllocatedBytes(thread) - before;
      fewest = Math.min(fewest, windows[measured++]);
    }
    String shown = Arrays.toString(Arrays.copyOf(windows, measured));
    System.out.printf("%s: bytes in windows of %d evaluations %s; an empty loop: %d%n", expression, CALLS, shown,
        emptyLoop);

    assertThat(mismatches).isZero();
    assertThat(fewest).as("bytes allocated by %d evaluations of %s (windows %s, an empty loop: %d)", CALLS,
        expression, shown, emptyLoop).isLessThanOrEqualTo(emptyLoop);
  }

  /** The control: a key that makes a new String per call is seen allocating, so the test above can fail. */
  @Test
  void theMeasurementSeesAKeyThatAllocates() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadAllocatedMemorySupported(), "this JVM does not count a thread's allocations");
    threads.setThreadAllocatedMemoryEnabled(true);
    long thread = Thread.currentThread().getId();
    ParamKey key = keys.compile("place", "#apiKey + ':'");
    Object[] args = {Order.of("c-7"), "k-1"};
    int distinct = run(key, args, "k-1:", WARM_UP);
    long emptyLoop = allocated(threads, thread, null, args, "k-1:");
    long before = threads.getThreadAllocatedBytes(thread);
    distinct += run(key, args, "k-1:", CALLS);
    long evaluated = threads.getThreadAllocatedBytes(thread) - before;
    System.out.printf("%s (control): %d bytes in %d evaluations; an empty loop: %d%n", "#apiKey + ':'", evaluated,
        CALLS, emptyLoop);
    assertThat(distinct).as("a new String each call").isEqualTo(WARM_UP + CALLS);
    assertThat(evaluated - emptyLoop).isGreaterThanOrEqualTo(CALLS * 16L);
  }

  /** The bytes an empty loop of {@link #CALLS} allocates between two readings: the measurement's own. */
  private static long allocated(com.sun.management.ThreadMXBean threads, long thread, @Nullable ParamKey key,
      Object[] args,
      String expected) {
    run(key, args, expected, WARM_UP);
    long before = threads.getThreadAllocatedBytes(thread);
    run(key, args, expected, CALLS);
    return threads.getThreadAllocatedBytes(thread) - before;
  }

  /** Evaluates {@code key} {@code times} times (nothing when it is null); returns how many keys were not expected. */
  private static int run(@Nullable ParamKey key, Object[] args, String expected, int times) {
    int mismatches = 0;
    for (int i = 0; i < times; i++) {
      Object value = key == null ? expected : key.keyOf(args);
      if (value != expected) {
        mismatches++;
      }
    }
    return mismatches;
  }
}
