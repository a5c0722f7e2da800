package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.ControlBehavior;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A few end-to-end checks on the real clock and real threads. A call's time as the test sees it
 * brackets the engine's: the engine reads the clock once the call has begun and decides before it
 * returns, so each call is recorded as the interval [{@code before}, {@code after}] of {@code
 * System.nanoTime()} readings around it, and a bound is asserted on what those intervals prove,
 * whatever the machine's load did to the calls. A run lasts its set span and then until what it
 * asserts about has happened ({@link RealTimeRun}).
 *
 * <p>The engine reads the ticker on every call here ({@code clockResolution(ZERO)}): the test brackets
 * each decision with its own readings of the real clock, which a coarse engine time trails. The
 * same bounds on the default coarse clock are asserted over the engine's own readings in
 * {@code CoarseClockBoundsTest}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RealTimeTest {

  private static final long MILLIS = 1_000_000L;

  /**
   * A window of 50 per second (10 buckets of 100 ms) on one thread. Upper bound: any 10 consecutive
   * buckets hold at most 50, and the calls surely decided within 900 ms of one call's start lie in
   * 10 buckets; 1.5 s of engine time holds at most 100. Lower bound: every refusal had 50 admissions
   * in its window, each decided after the refusal's start less a second.
   */
  @Test
  void rateLimitHoldsOnTheRealClock() {
    Weir weir = Weir.builder().clockResolution(Duration.ZERO).rules(RuleSet.of(FlowRule.qps("r", 50))).build();
    List<long[]> admitted = new ArrayList<>(); // {before, after} of each admitted call
    int[] refused = {0};
    int sinceOneSecond = 0; // admitted[sinceOneSecond..] ended after the current call's start less 1 s
    long start = System.nanoTime();
    while (RealTimeRun.again(start, Duration.ofMillis(1_500), () -> refused[0] > 0)) {
      long before = System.nanoTime();
      BlockException refusal = Calls.tryOnce(weir, "r");
      long after = System.nanoTime();
      if (refusal == null) {
        admitted.add(new long[] {before, after});
        continue;
      }
      refused[0]++;
      while (sinceOneSecond < admitted.size() && admitted.get(sinceOneSecond)[1] <= before - 1_000 * MILLIS) {
        sinceOneSecond++;
      }
      if (admitted.size() - sinceOneSecond < 50) { // checked before asserting: millions of refusals
        assertThat(admitted.size() - sinceOneSecond).as("admissions in the window of the refusal at %d ms",
            (before - start) / MILLIS).isGreaterThanOrEqualTo(50);
      }
    }
    assertThat(refused[0]).as("the run reached the limit").isPositive();
    for (int i = 0; i < admitted.size(); i++) {
      long from = admitted.get(i)[0];
      long inSpan = admitted.stream().skip(i).filter(call -> call[1] < from + 900 * MILLIS).count();
      assertThat(inSpan).as("admissions surely in the 900 ms from admission %d", i).isLessThanOrEqualTo(50);
    }
    assertThat(admitted.stream().filter(call -> call[1] < start + 1_500 * MILLIS).count())
        .as("admissions surely in the first 1.5 s").isLessThanOrEqualTo(100);
  }

  /**
   * Exact mode, 20 per second, on one thread. Upper bound: an admission is at least a second after
   * the 20th before it, so from the start of that one to the end of this one at least a second
   * passed. Lower bound: every refusal had 20 admissions in the second before it, the oldest of
   * which ended after the refusal's start less a second. The run lasts until the third second's
   * admissions began.
   */
  @Test
  void exactModeNeverLetsMoreThanCountIntoAnyRealSecond() {
    Weir weir = Weir.builder().clockResolution(Duration.ZERO).rules(RuleSet.of(FlowRule.builder("r").count(20).exact(true).build())).build();
    List<long[]> admitted = new ArrayList<>(); // {before, after} of each admitted call
    long start = System.nanoTime();
    while (RealTimeRun.again(start, Duration.ofMillis(2_200), () -> admitted.size() > 40)) {
      long before = System.nanoTime();
      try (Entry entry = weir.entry("r")) {
        admitted.add(new long[] {before, System.nanoTime()});
      } catch (BlockException refused) {
        // Checked before asserting: millions of refusals.
        if (admitted.size() < 20 || admitted.get(admitted.size() - 20)[1] < before - 1_000 * MILLIS) {
          assertThat(admitted.size()).as("admissions before a refusal").isGreaterThanOrEqualTo(20);
          assertThat(admitted.get(admitted.size() - 20)[1]).as("the 20th admission before the refusal at %d ms",
              (before - start) / MILLIS).isGreaterThanOrEqualTo(before - 1_000 * MILLIS);
        }
        Thread.onSpinWait();
      }
    }
    assertThat(admitted).as("admissions of three seconds").hasSizeGreaterThan(40);
    for (int i = 20; i < admitted.size(); i++) {
      assertThat(admitted.get(i)[1] - admitted.get(i - 20)[0]).as("admission %d and the 20th before it", i)
          .isGreaterThanOrEqualTo(1_000 * MILLIS);
    }
  }

  /**
   * A queue of 20 per second spaces ten back-to-back calls 50 ms apart: they cannot take less than
   * nine gaps; and the engine makes the thread wait at most one gap per call (a busy machine may
   * make the calls later still, but not by the engine's waiting).
   */
  @Test
  void queueSpacesCallsOnTheRealClock() {
    FlowRule rule = FlowRule.builder("r").count(20).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(Duration.ofSeconds(2)).build();
    List<Long> waits = java.util.Collections.synchronizedList(new ArrayList<>());
    Sleeper system = Sleeper.system();
    Weir weir = Weir.builder().clockResolution(Duration.ZERO).sleeper(nanos -> {
      waits.add(nanos);
      system.sleep(nanos);
    }).rules(RuleSet.of(rule)).build();
    long start = System.nanoTime();
    for (int i = 0; i < 10; i++) {
      weir.entry("r").close();
    }
    long elapsed = System.nanoTime() - start;
    assertThat(elapsed).as("nine gaps of 50 ms, never sooner").isGreaterThanOrEqualTo(450 * MILLIS - 1_000);
    assertThat(waits).as("waits the engine asked for").hasSizeLessThanOrEqualTo(9)
        .allSatisfy(wait -> assertThat(wait).isLessThanOrEqualTo(50 * MILLIS));
  }

  @Test
  void concurrencyLimitHoldsAcrossRealThreads() throws Exception {
    Weir weir = Weir.builder().clockResolution(Duration.ZERO).rules(RuleSet.of(FlowRule.threads("r", 3))).build();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger refused = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(8);
    for (int t = 0; t < 8; t++) {
      new Thread(() -> {
        for (int i = 0; i < 200; i++) {
          try (Entry entry = weir.entry("r")) {
            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
            LockSupport.parkNanos(100_000);
            inside.decrementAndGet();
          } catch (BlockException e) {
            refused.incrementAndGet();
          }
        }
        done.countDown();
      }).start();
    }
    assertThat(done.await(20, TimeUnit.SECONDS)).isTrue(); // a hang guard: 1,600 calls of 0.1 ms
    assertThat(most.get()).isLessThanOrEqualTo(3);
    assertThat(refused.get()).isPositive();
    ResourceStatistics stats = weir.statistics("r");
    assertThat(stats.totalPassed() + stats.totalBlocked()).isEqualTo(1_600);
    assertThat(stats.activeCalls()).isZero();
  }

  /**
   * The probe comes no sooner than the open duration (the breaker counts from the call's close, after
   * {@code opened}); a breaker that never lets one through is stopped by the class's timeout.
   */
  @Test
  void openCircuitLetsAProbeThroughAfterItsOpenDuration() {
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_COUNT).threshold(0)
        .minRequestAmount(1).openDuration(Duration.ofMillis(200)).build();
    Weir weir = Weir.builder().clockResolution(Duration.ZERO).rules(RuleSet.empty().withDegrade(List.of(rule))).build();
    long opened;
    try (Entry entry = weir.entry("r")) {
      entry.recordError(new IllegalStateException("down"));
      opened = System.nanoTime(); // the breaker counts from this call's completion, a little later
    }
    // Refused, unless this thread was descheduled past the open duration before it asked (then the
    // probe is due, and admitted): the breaker opened after `opened`, so only then may it admit.
    Throwable first = Calls.tryOnce(weir, "r");
    if (first == null) {
      assertThat(System.nanoTime() - opened).as("admitted at once: the open duration passed").isGreaterThanOrEqualTo(
          200 * MILLIS);
      assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
      return;
    }
    assertThat(first).isInstanceOf(DegradeException.class);
    while (Calls.tryOnce(weir, "r") != null) {
      Thread.onSpinWait();
    }
    assertThat(System.nanoTime() - opened).isGreaterThanOrEqualTo(200 * MILLIS);
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
  }
}
