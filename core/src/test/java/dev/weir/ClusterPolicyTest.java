package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.ScriptedClusterStore.Mode;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterLimit;
import dev.weir.cluster.ClusterOptions;
import dev.weir.cluster.FallbackReason;
import dev.weir.rule.FlowRule;
import dev.weir.rule.FlowStrategy;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Cluster mode in the engine: decisions of the store, the scopes handed to it, and the failure
 * policy (fallbacks, deadline, breaker on the driven ticker, in-flight bound), with a scripted
 * store in place of Redis.
 */
class ClusterPolicyTest {

  private static final FlowRule CLUSTERED = FlowRule.builder("r").count(3).clusterMode(true).build();

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L);
  private final ScriptedClusterStore store = new ScriptedClusterStore();
  private final List<ExecutorService> pools = new ArrayList<>();

  @AfterEach
  void stopPools() {
    pools.forEach(ExecutorService::shutdownNow);
    store.hanging.forEach(future -> future.complete(new ClusterDecision(true, 0, 0)));
  }

  private Weir engine(ClusterOptions options, FlowRule... rules) {
    return Weir.builder().ticker(ticker).sleeper(ticker).cluster(store, options).rules(RuleSet.of(rules)).build();
  }

  private static ClusterOptions options(ClusterFallback fallback) {
    return new ClusterOptions(Duration.ofMillis(20), fallback, 3, Duration.ofSeconds(1), 64);
  }

  @Test
  void theStoreDecidesAndItsRetryAfterReachesTheCaller() {
    Weir weir = engine(options(ClusterFallback.DENY), CLUSTERED);
    assertThat(Calls.admitted(weir, "r", 3)).isEqualTo(3);
    BlockException refused = Calls.tryOnce(weir, "r");
    assertThat(refused).isInstanceOf(FlowException.class);
    assertThat(refused.rule()).isEqualTo(CLUSTERED);
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofMillis(250));

    ClusterStatus status = weir.cluster();
    assertThat(status.admitted()).isEqualTo(3);
    assertThat(status.blocked()).isEqualTo(1);
    assertThat(status.fallbacks()).isZero();
    assertThat(status.latencyCount()).isEqualTo(4);
    assertThat(status.breakerState()).isEqualTo(CircuitState.CLOSED);
    assertThat(store.limits).containsExactly(new ClusterLimit("r", "all", 3, Duration.ofSeconds(1)));
  }

  @Test
  void eachRuleGetsTheScopeOfTheCallsItCounts() {
    Weir weir = engine(options(ClusterFallback.DENY),
        FlowRule.builder("a").count(5).clusterMode(true).build(),
        FlowRule.builder("b").count(5).limitApp("appA").clusterMode(true).build(),
        FlowRule.builder("c").count(5).limitApp(FlowRule.LIMIT_APP_OTHER).clusterMode(true).build(),
        FlowRule.builder("d").count(5).strategy(FlowStrategy.CHAIN).refResource("checkout").clusterMode(true)
            .interval(Duration.ofMinutes(1)).build());
    weir.runInContext("web", "x", () -> Calls.tryOnce(weir, "c"));
    weir.runInContext("web", "y", () -> Calls.tryOnce(weir, "c"));
    weir.runInContext("web", "x", () -> Calls.tryOnce(weir, "c")); // x's counter again

    assertThat(store.limits).extracting(limit -> limit.resource() + " " + limit.scope() + " " + limit.interval())
        .containsExactlyInAnyOrder("a all PT1S", "b origin=appA PT1S", "c other=x PT1S", "c other=y PT1S",
            "d chain=checkout,all PT1M");
    assertThat(store.acquires).hasValue(3);
  }

  @Test
  void anEqualRuleKeepsItsCounterAndAChangedOneGetsANewOne() {
    Weir weir = engine(options(ClusterFallback.DENY), CLUSTERED);
    weir.rules().replace("r", dev.weir.rule.RuleSet.empty().withFlow(List.of(CLUSTERED)));
    assertThat(store.limits).hasSize(1);
    weir.rules().load(RuleSet.empty().withFlow(List.of(CLUSTERED.toBuilder().count(4).build())));
    assertThat(store.limits).hasSize(2);
    assertThat(store.limits.get(1).count()).isEqualTo(4);
  }

  @Test
  void anExactRuleAsksForAnExactLimitAndFallsBackToAnExactLocalWindow() {
    FlowRule exact = CLUSTERED.toBuilder().exact(true).build();
    Weir weir = engine(options(ClusterFallback.LOCAL), exact);
    store.mode = Mode.FAIL;
    ticker.advance(Duration.ofMillis(99));
    assertThat(Calls.admitted(weir, "r", 5)).isEqualTo(3);
    // A bucketed window (10 buckets of 100 ms) would free these at 1000 ms, when their bucket leaves;
    // the exact one frees them a full second after their own time, 1099 ms.
    ticker.advance(Duration.ofMillis(901));
    assertThat(Calls.admitted(weir, "r", 5)).isZero();
    ticker.advance(Duration.ofMillis(98));
    assertThat(Calls.admitted(weir, "r", 5)).isZero();
    ticker.advance(Duration.ofMillis(1));
    assertThat(Calls.admitted(weir, "r", 5)).isEqualTo(3);
    assertThat(store.limits).containsExactly(new ClusterLimit("r", "all", 3, Duration.ofSeconds(1), true));
  }

  @ParameterizedTest
  @EnumSource(value = Mode.class, names = {"FAIL", "THROW"})
  void localFallbackAppliesTheSameRuleOnThisInstanceAlone(Mode failure) {
    Weir weir = engine(options(ClusterFallback.LOCAL), CLUSTERED);
    assertThat(weir.cluster().lastFailureTime()).as("no failure yet").isNull();
    java.time.Instant before = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
    store.mode = failure;
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(3);
    ticker.advance(Duration.ofSeconds(1));
    assertThat(Calls.admitted(weir, "r", 10)).isEqualTo(3);
    ClusterStatus status = weir.cluster();
    // Three failures open the breaker; a second later one call probes (and fails): the other calls
    // did not ask the store.
    assertThat(status.fallbacks(FallbackReason.ERROR)).isEqualTo(4);
    assertThat(status.fallbacks(FallbackReason.ERROR) + status.fallbacks(FallbackReason.BREAKER_OPEN)).isEqualTo(20);
    assertThat(status.lastFailure()).contains("IllegalStateException");
    assertThat(status.lastFailureTime()).as("when, by the wall clock").isBetween(before, java.time.Instant.now());
  }

  @ParameterizedTest
  @EnumSource(value = Mode.class, names = {"FAIL", "THROW"})
  void allowAndDenyFallbacks(Mode failure) {
    store.mode = failure;
    Weir allowing = engine(options(ClusterFallback.ALLOW), CLUSTERED);
    assertThat(Calls.admitted(allowing, "r", 10)).isEqualTo(10);
    Weir denying = engine(options(ClusterFallback.DENY), CLUSTERED);
    BlockException refused = Calls.tryOnce(denying, "r");
    assertThat(refused).isInstanceOf(FlowException.class);
    assertThat(refused.rule()).isEqualTo(CLUSTERED);
    assertThat(Calls.admitted(denying, "r", 9)).isZero();
    assertThat(denying.cluster().fallbacks()).isEqualTo(10);
  }

  /**
   * The store never answers: the call comes back once its deadline passed (never sooner), falls back
   * for {@link FallbackReason#TIMEOUT}, and cancels the decision. No upper bound on wall-clock time,
   * which a busy machine can break: a call that waited for the store would never come back, which
   * the method's timeout (a hang guard) catches.
   */
  @Test
  @Timeout(60)
  void aMissedDeadlineFallsBackInTimeAndCancelsTheDecision() {
    Weir weir = engine(new ClusterOptions(Duration.ofMillis(10), ClusterFallback.ALLOW, 3, Duration.ofSeconds(1), 64),
        CLUSTERED);
    store.mode = Mode.HANG;
    long start = System.nanoTime();
    assertThat(Calls.tryOnce(weir, "r")).isNull();
    long took = System.nanoTime() - start;
    assertThat(took).as("waited, ns").isGreaterThanOrEqualTo(Duration.ofMillis(10).toNanos());
    assertThat(store.hanging).singleElement().satisfies(future -> assertThat(future.isCancelled()).isTrue());
    assertThat(weir.cluster().fallbacks(FallbackReason.TIMEOUT)).isEqualTo(1);
    assertThat(weir.cluster().inFlight()).isZero();
    assertThat(weir.cluster().lastFailure()).isEqualTo("no answer within 10ms");
  }

  @Test
  void failuresInARowOpenTheBreakerUntilOneProbeAfterTheOpenDuration() {
    Weir weir = engine(options(ClusterFallback.DENY), CLUSTERED);
    ClusterStatus status = weir.cluster();
    store.mode = Mode.FAIL;
    Calls.admitted(weir, "r", 3);
    assertThat(status.breakerState()).isEqualTo(CircuitState.OPEN);
    Calls.admitted(weir, "r", 10);
    assertThat(store.acquires).hasValue(3);
    assertThat(status.fallbacks(FallbackReason.BREAKER_OPEN)).isEqualTo(10);

    ticker.advance(Duration.ofMillis(999));
    Calls.admitted(weir, "r", 5);
    assertThat(store.acquires).hasValue(3);

    ticker.advance(Duration.ofMillis(1));
    Calls.tryOnce(weir, "r"); // the probe fails: open for another second
    assertThat(store.acquires).hasValue(4);
    assertThat(status.breakerState()).isEqualTo(CircuitState.OPEN);
    ticker.advance(Duration.ofMillis(999));
    Calls.admitted(weir, "r", 5);
    assertThat(store.acquires).hasValue(4);

    ticker.advance(Duration.ofMillis(1));
    store.mode = Mode.COUNT;
    assertThat(Calls.tryOnce(weir, "r")).isNull(); // the probe succeeds
    assertThat(status.breakerState()).isEqualTo(CircuitState.CLOSED);
    assertThat(Calls.admitted(weir, "r", 5)).isEqualTo(2);
    assertThat(store.acquires).hasValue(10);
  }

  @Test
  void aSuccessBreaksTheStreak() {
    Weir weir = engine(options(ClusterFallback.DENY), FlowRule.builder("r").count(100).clusterMode(true).build());
    store.failing = n -> n % 3 != 0; // fail, fail, succeed, ...
    Calls.admitted(weir, "r", 30);
    assertThat(weir.cluster().breakerState()).isEqualTo(CircuitState.CLOSED);
    assertThat(store.acquires).hasValue(30);
  }

  @Test
  void onlyOneOfManyRacingCallersProbes() throws Exception {
    Weir weir = engine(new ClusterOptions(Duration.ofMillis(200), ClusterFallback.DENY, 1, Duration.ofSeconds(1), 64),
        CLUSTERED);
    store.mode = Mode.FAIL;
    Calls.tryOnce(weir, "r");
    assertThat(weir.cluster().breakerState()).isEqualTo(CircuitState.OPEN);
    ticker.advance(Duration.ofSeconds(1));
    store.mode = Mode.HANG; // the probe stays unanswered while the others arrive

    List<Future<BlockException>> calls = race(16, () -> Calls.tryOnce(weir, "r"));
    for (Future<BlockException> call : calls) {
      assertThat(call.get(5, TimeUnit.SECONDS)).isInstanceOf(FlowException.class);
    }
    assertThat(store.acquires).hasValue(2); // the first failure and one probe
    assertThat(weir.cluster().fallbacks(FallbackReason.BREAKER_OPEN)).isEqualTo(15);
    assertThat(weir.cluster().breakerState()).isEqualTo(CircuitState.OPEN); // the probe timed out
  }

  /**
   * Eight callers, four decisions in flight at most, a store that answers nobody and a deadline of
   * a minute (the longest allowed): four callers wait for the store, the other four fall back at once. That they did
   * not wait is shown by counts, not by wall-clock time: they came back while the four decisions
   * were still in flight and their deadline far off; only then does the store answer the four.
   */
  @Test
  @Timeout(30)
  void atMostMaxInFlightDecisionsWaitTheOthersFallBackAtOnce() throws Exception {
    Weir weir = engine(new ClusterOptions(Duration.ofMinutes(1), ClusterFallback.ALLOW, 100, Duration.ofSeconds(1),
        4), FlowRule.builder("r").count(100).clusterMode(true).build());
    store.mode = Mode.HANG;
    CountDownLatch returned = new CountDownLatch(4);
    List<Future<BlockException>> calls = race(8, () -> {
      BlockException refused = Calls.tryOnce(weir, "r");
      returned.countDown();
      return refused;
    });
    returned.await(); // the four that fell back; the method's timeout is the hang guard
    assertThat(weir.cluster().fallbacks(FallbackReason.SATURATED)).isEqualTo(4);
    assertThat(weir.cluster().fallbacks(FallbackReason.TIMEOUT)).isZero();
    assertThat(weir.cluster().inFlight()).as("the other four still wait for the store").isEqualTo(4);
    for (CompletableFuture<ClusterDecision> hung : store.hanging) {
      hung.complete(new ClusterDecision(true, 0, 0));
    }
    for (Future<BlockException> call : calls) {
      assertThat(call.get()).isNull(); // allowed: by the fallback or by the store
    }
    assertThat(store.acquires).hasValue(4);
    assertThat(weir.cluster().fallbacks(FallbackReason.TIMEOUT)).isZero();
    assertThat(weir.cluster().inFlight()).isZero();
  }

  @Test
  void countsAreConservedUnderManyThreadsWithFailuresMixedIn() throws Exception {
    int threads = 16;
    int perThread = 2_000;
    Weir weir = engine(new ClusterOptions(Duration.ofSeconds(5), ClusterFallback.LOCAL, 1_000, Duration.ofSeconds(1),
        64), FlowRule.builder("r").count(10_000).clusterMode(true).build());
    store.failing = n -> n % 7 == 0;
    AtomicLong passed = new AtomicLong();
    AtomicLong blocked = new AtomicLong();
    List<Future<BlockException>> calls = race(threads, () -> {
      for (int i = 0; i < perThread; i++) {
        if (Calls.tryOnce(weir, "r") == null) {
          passed.incrementAndGet();
        } else {
          blocked.incrementAndGet();
        }
      }
      return null;
    });
    for (Future<BlockException> call : calls) {
      call.get(60, TimeUnit.SECONDS);
    }
    long attempts = (long) threads * perThread;
    ClusterStatus status = weir.cluster();
    assertThat(passed.get() + blocked.get()).isEqualTo(attempts);
    assertThat(status.admitted() + status.blocked() + status.fallbacks()).isEqualTo(attempts);
    assertThat(status.fallbacks()).isEqualTo(status.fallbacks(FallbackReason.ERROR)).isEqualTo(attempts / 7);
    assertThat(store.counted("r")).isEqualTo(status.admitted()).isLessThanOrEqualTo(10_000);
    assertThat(status.admitted()).isEqualTo(10_000); // far more store decisions than the limit
    // Every failed decision went to the local window of 10 000, which admits all of them.
    assertThat(passed.get()).isEqualTo(status.admitted() + status.fallbacks());
    assertThat(weir.statistics("r").totalBlocked()).isEqualTo(blocked.get());
  }

  /**
   * An interrupted caller does not wait for the store: with a deadline of a minute, a caller that
   * waited would outlast the method's timeout (the hang guard), and its fallback would be counted as
   * a timeout; it is counted as an error.
   */
  @Test
  @Timeout(30)
  void anInterruptedCallerFallsBackKeepsItsFlagAndDoesNotCountAsAFailure() {
    Weir weir = engine(new ClusterOptions(Duration.ofMinutes(1), ClusterFallback.ALLOW, 1, Duration.ofSeconds(1),
        64), CLUSTERED);
    store.mode = Mode.HANG;
    Thread.currentThread().interrupt();
    try {
      assertThat(Calls.tryOnce(weir, "r")).isNull();
      assertThat(Thread.currentThread().isInterrupted()).isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(weir.cluster().breakerState()).isEqualTo(CircuitState.CLOSED); // threshold 1 not reached
    assertThat(weir.cluster().fallbacks(FallbackReason.ERROR)).isEqualTo(1);
    assertThat(weir.cluster().fallbacks(FallbackReason.TIMEOUT)).isZero();
  }

  @Test
  void permitsOfTheLocalFallbackAreRefundedThoseInTheStoreAreNot() {
    FlowRule second = FlowRule.qps("r", 1);
    FlowRule clustered = FlowRule.builder("r").count(2).clusterMode(true).build();

    Weir local = engine(new ClusterOptions(Duration.ofMillis(20), ClusterFallback.LOCAL, 1_000, Duration.ofSeconds(1),
        64), clustered, second);
    store.mode = Mode.FAIL;
    assertThat(Calls.tryOnce(local, "r")).isNull();
    assertThat(Calls.tryOnce(local, "r").rule()).isEqualTo(second);
    // The local window got its permit back: the cluster rule still admits, the second rule refuses.
    assertThat(Calls.tryOnce(local, "r").rule()).isEqualTo(second);

    store.mode = Mode.COUNT;
    Weir stored = engine(options(ClusterFallback.DENY), clustered, second);
    assertThat(Calls.tryOnce(stored, "r")).isNull();
    assertThat(Calls.tryOnce(stored, "r").rule()).isEqualTo(second);
    assertThat(store.counted("r")).isEqualTo(2); // not given back in the store
    assertThat(Calls.tryOnce(stored, "r").rule()).isEqualTo(clustered);
  }

  @Test
  void aShadowRuleBesideOneInForceCountsApartAndTakesNothingFromIt() {
    // A tighter limit tried in shadow beside the one in force: accepted, and the rule in force still
    // admits its whole count (one shared counter admitted 2 of 3 here, and the start refused it).
    FlowRule tighter = CLUSTERED.toBuilder().count(2).shadow(true).build();
    Weir weir = engine(options(ClusterFallback.DENY), CLUSTERED, tighter);
    assertThat(Calls.admitted(weir, "r", 5)).as("admitted by the rule in force").isEqualTo(3);
    assertThat(store.limits).contains(new ClusterLimit("r", "all", 3, Duration.ofSeconds(1)),
        new ClusterLimit("r", "all,shadow", 2, Duration.ofSeconds(1)));
    assertThat(weir.statistics("r").totalShadowBlocked(dev.weir.rule.RuleKind.FLOW)).as("what the shadow rule would have refused").isEqualTo(1);
    assertThatThrownBy(() -> weir.rules().load(RuleSet.empty().withFlow(List.of(tighter, tighter.toBuilder().count(9)
        .build())))).isInstanceOf(InvalidRulesException.class).hasMessageContaining("same interval as [0]");

    // Switched on, the tighter rule counts in the counter of rules in force, where every instance's
    // rule in force counts, not on in its shadow counter.
    store.limits.clear();
    weir.rules().load(RuleSet.empty().withFlow(List.of(tighter.toBuilder().shadow(false).build())));
    Calls.admitted(weir, "r", 1);
    assertThat(store.limits).containsOnly(new ClusterLimit("r", "all", 2, Duration.ofSeconds(1)));
  }

  @Test
  void rulesThatCannotBeClusteredAreRefusedWithTheirField() {
    Weir withoutClient = Weir.builder().ticker(ticker).build();
    assertThatThrownBy(() -> withoutClient.rules().load(RuleSet.empty().withFlow(List.of(CLUSTERED))))
        .isInstanceOf(InvalidRulesException.class).hasMessageContaining("[0].cluster-mode")
        .hasMessageContaining("needs a cluster client");

    Weir weir = engine(options(ClusterFallback.DENY));
    FlowRule perMinute = CLUSTERED.toBuilder().interval(Duration.ofMinutes(1)).build();
    assertThatThrownBy(() -> weir.rules().load(RuleSet.empty().withFlow(List.of(CLUSTERED, CLUSTERED.toBuilder().count(9).build()))))
        .isInstanceOf(InvalidRulesException.class).hasMessageContaining("[1].cluster-mode")
        .hasMessageContaining("same interval as [0]");
    weir.rules().load(RuleSet.empty().withFlow(List.of(CLUSTERED, perMinute))); // another interval: another counter
    assertThat(weir.rules().rules("r").flow()).hasSize(2);
    assertThatThrownBy(() -> weir.rules().load(RuleSet.empty().withFlow(List.of(CLUSTERED.toBuilder()
        .interval(Duration.ofMillis(15)).build()))))
        .isInstanceOf(InvalidRulesException.class).hasMessageContaining("interval")
        .hasMessageContaining("multiple of 10ms");
  }

  private <T> List<Future<T>> race(int threads, java.util.concurrent.Callable<T> call) throws InterruptedException {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    pools.add(pool);
    CountDownLatch ready = new CountDownLatch(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<T>> futures = new ArrayList<>();
    for (int i = 0; i < threads; i++) {
      futures.add(pool.submit(() -> {
        ready.countDown();
        go.await();
        return call.call();
      }));
    }
    ready.await();
    go.countDown();
    return futures;
  }

}
