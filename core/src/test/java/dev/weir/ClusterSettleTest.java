package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.ScriptedClusterStore.Mode;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link Entry#settle} of cluster-mode calls decided per call, on the driven ticker with a scripted
 * store (an in-memory count per limit, no refill): the adjustment is one settlement on the count the
 * call was decided on, the caller never waits for it, and what the store does not take is handled
 * as documented (a refund stays counted, a debt rides on the next settlement). The store's own side
 * (Redis windows) is tested in the Spring module on a real redis-server.
 */
@Timeout(60)
class ClusterSettleTest {

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L);
  private final ScriptedClusterStore store = new ScriptedClusterStore();
  private final List<Weir> engines = new ArrayList<>();

  @AfterEach
  void close() {
    engines.forEach(Weir::close);
    store.hanging.forEach(future -> future.cancel(false));
    store.hangingSettlements.forEach(future -> future.cancel(false));
  }

  private Weir engine(ClusterFallback fallback, RuleSet rules) {
    Weir weir = Weir.builder().ticker(ticker).sleeper(ticker)
        .cluster(store, new ClusterOptions(Duration.ofMillis(20), fallback, 3, Duration.ofSeconds(1), 64))
        .rules(rules).build();
    engines.add(weir);
    return weir;
  }

  private Weir engine(double count) {
    return engine(ClusterFallback.DENY, RuleSet.of(FlowRule.builder("r").count(count).clusterMode(true).build()));
  }

  private static void call(Weir weir, int estimate, long actual) {
    try (Entry entry = weir.entry("r", EntryType.OUT, estimate)) {
      entry.settle(actual);
    }
  }

  @Test
  void aRefundIsGivenBackInTheStoreByOneSettlement() {
    Weir weir = engine(10);
    call(weir, 8, 2);
    assertThat(store.settlements).hasSize(1);
    assertThat(store.settlements.get(0)[1]).isEqualTo(-6);
    assertThat(store.counted("r")).isEqualTo(2);
    assertThat(store.acquires).as("no decision besides the call's").hasValue(1);
    assertThat(Calls.tryOnce(weir, "r")).isNull();
    try (Entry entry = weir.entry("r", EntryType.OUT, 7)) {
      assertThat(entry).as("2 + 1 + 7 fit 10").isNotNull();
    }
    assertThat(weir.cluster().settled()).isEqualTo(1);
    assertThat(weir.cluster().unsettled()).isZero();
  }

  @Test
  void aDebtIsCountedInTheStoreAndTheRuleRefusesUntilItIsPaid() {
    Weir weir = engine(10);
    call(weir, 5, 15);
    assertThat(store.counted("r")).isEqualTo(15);
    assertThat(Calls.tryOnce(weir, "r")).isInstanceOf(FlowException.class);
  }

  @Test
  void aSettlementAtTheEstimateSendsNothing() {
    Weir weir = engine(10);
    call(weir, 4, 4);
    assertThat(store.settlements).isEmpty();
    assertThat(weir.cluster().settled()).isZero();
  }

  /** Settled at Long.MAX_VALUE: the debt saturates, nothing overflows, the rule stays shut. */
  @Test
  void aSettlementOfLongMaxValueSaturatesAndShutsTheRule() {
    Weir weir = engine(10);
    Entry first = weir.asyncEntry("r", EntryType.OUT, 1);
    Entry second = weir.asyncEntry("r", EntryType.OUT, 1);
    first.settle(Long.MAX_VALUE);
    first.close();
    assertThat(store.settlements.get(0)[1]).isEqualTo(Long.MAX_VALUE - 1);
    assertThat(store.counted("r")).isEqualTo(Long.MAX_VALUE);
    assertThat(Calls.tryOnce(weir, "r")).isInstanceOf(FlowException.class);
    second.settle(Long.MAX_VALUE); // its debt adds to a saturated count
    second.close();
    assertThat(store.counted("r")).isEqualTo(Long.MAX_VALUE);
    assertThat(weir.cluster().unsettled()).isZero();
  }

  /**
   * The store cannot take two settlements: the refund stays counted there (the safe side), the debt
   * is kept and sent with the next settlement, in its one command; both count as unsettled.
   */
  @Test
  void aDebtTheStoreDidNotTakeRidesOnTheNextSettlementAndARefundStaysCounted() {
    Weir weir = engine(100);
    store.settling = false; // the SPI's default: cannot settle
    call(weir, 3, 0);
    call(weir, 2, 7);
    assertThat(store.counted("r")).as("estimates only").isEqualTo(5);
    assertThat(weir.cluster().unsettled()).isEqualTo(2);
    store.settling = true;
    call(weir, 4, 3);
    assertThat(store.settlements).hasSize(1);
    assertThat(store.settlements.get(0)[1]).as("-1 of this call, +5 kept").isEqualTo(4);
    assertThat(store.counted("r")).as("3 kept + 2 + 5 + 4 - 1").isEqualTo(13);
    assertThat(weir.cluster().settled()).isEqualTo(1);
    call(weir, 1, 0);
    assertThat(store.settlements.get(1)[1]).as("the debt was sent once").isEqualTo(-1);
  }

  /** A store that hangs: settle returns at once, the command is cancelled at the deadline, the debt kept. */
  @Test
  void aStoreThatHangsNeverHoldsTheCallerAndItsSettlementIsCancelledAtTheDeadline() {
    Weir weir = engine(100);
    Entry entry = weir.entry("r", EntryType.OUT, 2);
    store.mode = Mode.HANG;
    entry.settle(9); // returns: the test would hang here otherwise
    entry.close();
    assertThat(store.hangingSettlements).hasSize(1);
    CompletableFuture<Object> sent = store.hangingSettlements.peek();
    while (!sent.isDone()) {
      Thread.onSpinWait(); // the JDK's timer ends it once the 20 ms deadline has passed
    }
    assertThat(sent).isCompletedExceptionally();
    await(() -> weir.cluster().unsettled() == 1);
    assertThat(weir.cluster().inFlight()).as("its place in flight is free again").isZero();
    assertThat(weir.cluster().breakerState()).as("a settlement is not a decision").isEqualTo(CircuitState.CLOSED);
    store.mode = Mode.COUNT;
    call(weir, 1, 1 + 1);
    assertThat(store.settlements.get(1)[1]).as("its debt of 7 rides on the next, with this one's 1").isEqualTo(8);
  }

  @Test
  void aStoreThatThrowsOrFailsOnASettlementNeverReachesTheCaller() {
    Weir weir = engine(100);
    Entry throwing = weir.entry("r", EntryType.OUT, 2);
    store.mode = Mode.THROW;
    throwing.settle(5);
    throwing.close();
    store.mode = Mode.COUNT;
    Entry failing = weir.entry("r", EntryType.OUT, 2);
    store.mode = Mode.FAIL;
    failing.settle(0);
    failing.close();
    assertThat(weir.cluster().unsettled()).isEqualTo(2);
    assertThat(weir.cluster().inFlight()).isZero();
  }

  /** The breaker open: settlements are not sent (nor probe), and count as unsettled. */
  @Test
  void noSettlementIsSentWhileTheBreakerIsOpen() {
    Weir weir = engine(ClusterFallback.LOCAL, RuleSet.of(FlowRule.builder("r").count(100).clusterMode(true).build()));
    Entry admitted = weir.entry("r", EntryType.OUT, 2);
    store.mode = Mode.FAIL;
    for (int i = 0; i < 3; i++) {
      Calls.tryOnce(weir, "r");
    }
    assertThat(weir.cluster().breakerState()).isEqualTo(CircuitState.OPEN);
    admitted.settle(10);
    admitted.close();
    assertThat(store.settlements).isEmpty();
    assertThat(weir.cluster().unsettled()).isEqualTo(1);
  }

  /** A call the local fallback admitted settles with the local limiter, never with the store. */
  @Test
  void aCallTheFallbackAdmittedIsNotSettledInTheStore() {
    Weir weir = engine(ClusterFallback.LOCAL, RuleSet.of(FlowRule.builder("r").count(100).clusterMode(true).build()));
    store.mode = Mode.FAIL;
    call(weir, 5, 1);
    store.mode = Mode.COUNT;
    assertThat(store.settlements).isEmpty();
    assertThat(weir.cluster().settled() + weir.cluster().unsettled()).isZero();
  }

  @Test
  void severalRulesDecidedTogetherSettleTogetherInOneCommand() {
    store.combining = true;
    Weir weir = engine(ClusterFallback.DENY, RuleSet.of(FlowRule.builder("r").count(10).clusterMode(true).build(),
        FlowRule.builder("r").count(20).interval(Duration.ofMinutes(1)).clusterMode(true).build()));
    call(weir, 6, 1);
    assertThat(store.settlements).hasSize(1);
    assertThat(store.counted("r", Duration.ofSeconds(1))).isEqualTo(1);
    assertThat(store.counted("r", Duration.ofMinutes(1))).isEqualTo(1);
    call(weir, 1, 30);
    assertThat(store.counted("r", Duration.ofMinutes(1))).isEqualTo(31);
    assertThat(Calls.tryOnce(weir, "r")).isInstanceOf(FlowException.class);
  }

  @Test
  void aKeyOfAClusterParamFlowRuleSettlesOnThatKey() {
    ParamFlowRule perKey = ParamFlowRule.builder("k").paramIndex(0).count(10).clusterMode(true).build();
    Weir weir = engine(ClusterFallback.DENY, RuleSet.of(perKey));
    try (Entry entry = weir.entry("k", EntryType.OUT, 8, "alice")) {
      entry.settle(3);
    }
    try (Entry entry = weir.entry("k", EntryType.OUT, 4, "bob")) {
      entry.settle(10);
    }
    String rule = store.keyLimits.get(0).rule();
    assertThat(store.countedKey("k", rule, "alice")).isEqualTo(3);
    assertThat(store.countedKey("k", rule, "bob")).isEqualTo(10);
    assertThat(weir.tryEntry("k", EntryType.OUT, 7, "alice")).as("3 + 7 fit alice's 10").isNotNull().satisfies(
        Entry::close);
    assertThat(weir.tryEntry("k", EntryType.OUT, 1, "bob")).as("bob's debt").isNull();
  }

  /**
   * Settles racing from real threads, on async entries settled off their entering thread: the store
   * ends with exactly the sum of the actual costs (no settlement lost or applied twice), and of two
   * threads settling one entry exactly one does.
   */
  @Test
  void settlesRacingFromThreadsCountEachCostOnce() throws Exception {
    Weir weir = engine(Integer.MAX_VALUE);
    int threads = 8;
    int calls = 500;
    AtomicLong actual = new AtomicLong();
    AtomicInteger twice = new AtomicInteger();
    CyclicBarrier start = new CyclicBarrier(threads);
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Thread thread = new Thread(() -> {
        try {
          start.await();
          for (int i = 0; i < calls; i++) {
            Entry entry = weir.asyncEntry("r", EntryType.OUT, 1 + ThreadLocalRandom.current().nextInt(10));
            long cost = ThreadLocalRandom.current().nextLong(10_000);
            Thread other = new Thread(() -> {
              try {
                entry.settle(cost);
              } catch (IllegalStateException e) {
                twice.incrementAndGet();
              }
            });
            other.start();
            try {
              entry.settle(cost);
            } catch (IllegalStateException e) {
              twice.incrementAndGet();
            }
            other.join();
            entry.close();
            actual.addAndGet(cost);
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      thread.start();
      running.add(thread);
    }
    for (Thread thread : running) {
      thread.join();
    }
    assertThat(twice).as("one of each two settles threw").hasValue(threads * calls);
    assertThat(store.counted("r")).isEqualTo(actual.get());
    assertThat(weir.cluster().unsettled()).isZero();
    assertThat(weir.cluster().settled()).isEqualTo(store.settlements.size());
  }

  private static void await(java.util.function.BooleanSupplier condition) {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("condition not met within 10 s");
      }
      Thread.onSpinWait();
    }
  }
}
