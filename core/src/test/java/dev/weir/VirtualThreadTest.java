package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.internal.call.CallStack;
import dev.weir.internal.call.RecordingClock;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * Limits hold with virtual threads, and a virtual thread keeps nothing of the engine after its
 * call. Needs JDK 21+: disabled, with the reason, on older JDKs; the build's {@code virtual-threads}
 * profile runs it on Temurin 25 where that is installed. Compiled for Java 17, so virtual threads
 * are made through reflection.
 */
@Tag("virtual-threads")
@EnabledForJreRange(min = JRE.JAVA_21,
    disabledReason = "virtual threads need JDK 21+; the build's virtual-threads profile runs this on Temurin 25")
@Timeout(60)
class VirtualThreadTest {

  private static ExecutorService virtualThreadPerTask() throws ReflectiveOperationException {
    return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
  }

  /** 20 000 virtual threads, one call each, against a limit of 8 at a time: never more than 8. */
  @Test
  void aThreadsLimitHoldsAcrossManyVirtualThreads() throws Exception {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.threads("r", 8))).build();
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger maxInFlight = new AtomicInteger();
    int calls = 20_000;
    ExecutorService executor = virtualThreadPerTask();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < calls; i++) {
        done.add(executor.submit(() -> {
          try (Entry entry = weir.entry("r")) {
            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            Thread.sleep(0, 100_000); // parks the virtual thread: others run meanwhile
            inFlight.decrementAndGet();
          } catch (BlockException refused) {
            // counted by the engine
          }
          return null;
        }));
      }
      for (Future<?> future : done) {
        future.get(30, TimeUnit.SECONDS);
      }
    } finally {
      awaitAll(executor);
    }
    ResourceStatistics stats = weir.statistics("r");
    assertThat(maxInFlight.get()).isBetween(1, 8);
    assertThat(stats.totalPassed() + stats.totalBlocked()).isEqualTo(calls);
    assertThat(stats.totalSucceeded()).isEqualTo(stats.totalPassed());
    assertThat(stats.activeCalls()).isZero();
  }

  /**
   * A qps limit on a driven clock that does not move: 10 000 virtual threads, one call each, and
   * at most the count is admitted (the window's per-thread credits are taken within the count).
   */
  @Test
  void aQpsLimitHoldsAcrossManyVirtualThreads() throws Exception {
    FakeTicker ticker = new FakeTicker();
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.qps("r", 500))).build();
    AtomicInteger admitted = new AtomicInteger();
    int calls = 10_000;
    ExecutorService executor = virtualThreadPerTask();
    try {
      for (int i = 0; i < calls; i++) {
        executor.execute(() -> {
          try (Entry entry = weir.entry("r")) {
            admitted.incrementAndGet();
          } catch (BlockException refused) {
            // counted by the engine
          }
        });
      }
    } finally {
      awaitAll(executor);
    }
    ResourceStatistics stats = weir.statistics("r");
    assertThat(admitted.get()).isLessThanOrEqualTo(500).isGreaterThanOrEqualTo(500 - 8 * 64);
    assertThat(stats.totalPassed()).isEqualTo(admitted.get());
    assertThat(stats.totalPassed() + stats.totalBlocked()).isEqualTo(calls);
  }

  /**
   * The real clock: 2 000 virtual threads call for 1.2 s, each admission recorded at the engine's
   * own reading for it ({@link RecordingClock}); virtual threads read the clock, yield or are
   * unmounted, and arrive late, as on a loaded machine. The exact rule's bound holds over every
   * interval-long span, and the window rule's over every ten of its buckets (as in
   * {@code RealClockBoundsTest}, there with platform threads). The run lasts 1.2 s and then until
   * each rule admitted more than 100 ({@link RealTimeRun}).
   */
  @Test
  void ratesHoldOnTheRealClockAcrossVirtualThreads() throws Exception {
    long millis = 1_000_000L;
    RecordingClock clock = new RecordingClock();
    Weir weir = Weir.builder().ticker(clock).sleeper(clock).rules(RuleSet.of(
        FlowRule.builder("exact").count(20).interval(Duration.ofMillis(100)).exact(true).build(),
        FlowRule.builder("window").count(20).interval(Duration.ofMillis(100)).build())).build();
    List<Long> exact = java.util.Collections.synchronizedList(new ArrayList<>());
    List<Long> window = java.util.Collections.synchronizedList(new ArrayList<>());
    RealTimeRun run = new RealTimeRun();
    ExecutorService executor = virtualThreadPerTask();
    try {
      for (int i = 0; i < 2_000; i++) {
        String resource = i % 2 == 0 ? "exact" : "window";
        List<Long> admitted = i % 2 == 0 ? exact : window;
        executor.execute(() -> {
          while (run.going()) {
            clock.startCall();
            try (Entry entry = weir.entry(resource)) {
              admitted.add(clock.admittedAt());
            } catch (BlockException refused) {
              Thread.yield();
            }
          }
        });
      }
      run.endWhen(Duration.ofMillis(1200), () -> exact.size() > 100 && window.size() > 100);
    } finally {
      run.end(); // should the loop above have thrown
      awaitAll(executor);
    }
    List<Long> sortedExact = new ArrayList<>(exact);
    java.util.Collections.sort(sortedExact);
    assertThat(sortedExact).hasSizeGreaterThan(100);
    for (int i = 20; i < sortedExact.size(); i++) {
      assertThat(sortedExact.get(i) - sortedExact.get(i - 20)).as("exact: admission %d and the 20th before it", i)
          .isGreaterThanOrEqualTo(100 * millis);
    }
    java.util.Map<Long, Integer> perBucket = new java.util.TreeMap<>();
    for (long t : window) {
      perBucket.merge(Math.floorDiv(t, 10 * millis), 1, Integer::sum);
    }
    assertThat(window).hasSizeGreaterThan(100);
    for (long first : perBucket.keySet()) {
      int inWindow = 0;
      for (long b = first; b < first + 10; b++) {
        inWindow += perBucket.getOrDefault(b, 0);
      }
      assertThat(inWindow).as("window: admissions in the ten buckets from %d", first).isLessThanOrEqualTo(20);
    }
  }

  /**
   * After its call, a virtual thread that is still alive holds no stack of the engine: the stack
   * it used becomes unreachable. (A platform thread keeps its stack to reuse its frames.)
   */
  /** A virtual thread's transient stack stays while a context gives its calls a criticality. */
  @Test
  void aVirtualThreadsContextKeepsItsCriticalityBetweenCalls() throws Exception {
    Weir weir = Weir.builder().build();
    ExecutorService executor = virtualThreadPerTask();
    try {
      List<Criticality> seen = executor.submit(() -> {
        List<Criticality> found = new ArrayList<>();
        try (ContextScope scope = weir.enterContext(Weir.DEFAULT_CONTEXT, "", Criticality.SHEDDABLE)) {
          for (int i = 0; i < 2; i++) {
            try (Entry entry = weir.entry("r")) {
              found.add(entry.criticality());
            }
          }
        }
        try (Entry entry = weir.entry("r")) {
          found.add(entry.criticality());
        }
        return found;
      }).get(10, TimeUnit.SECONDS);
      assertThat(seen).containsExactly(Criticality.SHEDDABLE, Criticality.SHEDDABLE, Criticality.CRITICAL);
    } finally {
      executor.shutdown();
    }
  }

  @Test
  void aVirtualThreadKeepsNothingAfterItsCall() throws Exception {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.threads("r", 8), FlowRule.qps("closed", 0))).build();
    AtomicReference<WeakReference<CallStack>> used = new AtomicReference<>();
    AtomicReference<WeakReference<CallStack>> scoped = new AtomicReference<>();
    AtomicReference<WeakReference<CallStack>> asyncOpen = new AtomicReference<>();
    AtomicReference<WeakReference<CallStack>> asyncRefused = new AtomicReference<>();
    CountDownLatch called = new CountDownLatch(1);
    CountDownLatch end = new CountDownLatch(1);
    ExecutorService executor = virtualThreadPerTask();
    try {
      Future<?> thread = executor.submit(() -> {
        // in methods of their own, so that no dead local of this frame keeps an entry while parked
        used.set(callOnce(weir));
        scoped.set(callInContext(weir));
        asyncOpen.set(asyncEntryOnce(weir));
        asyncRefused.set(asyncRefusal(weir));
        called.countDown();
        end.await(); // the thread stays alive while the test looks
        return null;
      });
      try {
        assertThat(called.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(collected(used.get())).as("the stack of a finished call is unreachable").isTrue();
        assertThat(collected(scoped.get())).as("the stack of a closed context is unreachable").isTrue();
        assertThat(weir.statistics("r").activeCalls()).as("the asynchronous call is open").isEqualTo(1);
        OPEN_ELSEWHERE.forEach(Entry::close); // its work completes on another thread, while the thread is parked
        OPEN_ELSEWHERE.clear();
        assertThat(collected(asyncOpen.get())).as("the stack an asynchronous call was made on is unreachable once"
            + " the call is closed elsewhere: the parked thread does not hold it").isTrue();
        assertThat(collected(asyncRefused.get())).as("a refused asynchronous call keeps no stack").isTrue();
      } finally {
        end.countDown();
      }
      thread.get(10, TimeUnit.SECONDS);
    } finally {
      awaitAll(executor);
    }
    assertThat(weir.statistics("r").totalSucceeded()).isEqualTo(3);
  }

  private static WeakReference<CallStack> callOnce(Weir weir) {
    try (Entry entry = weir.entry("r")) {
      return new WeakReference<>(weir.currentStack());
    }
  }

  /** An asynchronous call left open (its work goes on elsewhere); the thread goes on without it. */
  private static WeakReference<CallStack> asyncEntryOnce(Weir weir) {
    WeakReference<CallStack> stack = new WeakReference<>(weir.currentStack()); // the stack the call is made on
    Entry open = weir.asyncEntry("r", EntryType.OUT, 1);
    OPEN_ELSEWHERE.add(open); // its work goes on elsewhere, which closes it when done
    return stack;
  }

  private static WeakReference<CallStack> asyncRefusal(Weir weir) {
    WeakReference<CallStack> stack = new WeakReference<>(weir.currentStack());
    try {
      weir.asyncEntry("closed", EntryType.OUT, 1).close();
      throw new AssertionError("a count of 0 refuses every call");
    } catch (BlockException refused) {
      return stack;
    }
  }

  private static final List<Entry> OPEN_ELSEWHERE = java.util.Collections.synchronizedList(new ArrayList<>());

  private static WeakReference<CallStack> callInContext(Weir weir) {
    try (ContextScope scope = weir.enterContext("ctx", "origin")) {
      weir.entry("r").close();
      return new WeakReference<>(weir.currentStack());
    }
  }

  /** Waits for every task: what {@code ExecutorService.close()} does on JDK 19+. */
  private static void awaitAll(ExecutorService executor) throws InterruptedException {
    executor.shutdown();
    assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).as("the virtual threads finished").isTrue();
  }

  private static boolean collected(WeakReference<?> reference) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (reference.get() != null && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(20);
    }
    return reference.get() == null;
  }
}
