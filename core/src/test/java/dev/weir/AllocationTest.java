package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The hot path allocates nothing: entry and close, a refusal through {@code tryEntry}, a keyed
 * decision, a circuit breaker's admitted call. Measured deterministically, in bytes, with the
 * thread's allocation counter ({@code com.sun.management.ThreadMXBean}) over {@value #CALLS} calls
 * after a warm-up, whatever the JIT did: interpreted, C1 or C2 code allocates the same here, since
 * nothing on these paths relies on escape analysis (the entry is the thread's pooled call state).
 * The clock is driven and does not move, so no statistics bucket rolls over during a measurement
 * (a rollover allocates one bucket per half-second per resource, which no call pays for alone).
 *
 * <p>A regression guard, not a benchmark: it fails when a change makes the path allocate.
 */
class AllocationTest {

  private static final int CALLS = 100_000;
  private static final int WINDOWS = 5;

  private final FakeTicker ticker = new FakeTicker();

  private Weir engine(RuleSet rules) {
    return Weir.builder().ticker(ticker).sleeper(ticker).rules(rules).build();
  }

  /**
   * Bytes {@code call} allocates over {@value #CALLS} runs, after as many to warm up, less the
   * loop's own: the least of up to {@value #WINDOWS} measured windows, stopping at the first that
   * allocates nothing. A call that allocates shows {@value #CALLS} times its bytes in every window;
   * what one window alone shows (a few dozen bytes) is the JVM's own, or, on a moving clock, a
   * statistics bucket rolling over once per half-second: no call pays for it.
   */
  private static long allocatedBy(Runnable call) {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    Runnable nothing = () -> { };
    for (int i = 0; i < CALLS; i++) {
      call.run();
      nothing.run();
    }
    long least = Long.MAX_VALUE;
    for (int window = 0; window < WINDOWS && least > 0; window++) {
      long emptyStart = threads.getThreadAllocatedBytes(thread);
      for (int i = 0; i < CALLS; i++) {
        nothing.run();
      }
      long empty = threads.getThreadAllocatedBytes(thread) - emptyStart;
      long start = threads.getThreadAllocatedBytes(thread);
      for (int i = 0; i < CALLS; i++) {
        call.run();
      }
      least = Math.min(least, threads.getThreadAllocatedBytes(thread) - start - empty);
    }
    return least;
  }

  @Test
  void entryAndCloseAllocateNothing() {
    Weir weir = engine(RuleSet.of(FlowRule.qps("r", 1e9), FlowRule.threads("r", 1_000_000)));
    assertThat(allocatedBy(() -> weir.entry("r").close())).isZero();
  }

  /**
   * A settled call ({@link Entry#settle}): a window rule and a keyed token bucket each given back
   * what the call did not use, or charged its excess, and the resource's cost estimate read and fed.
   * The estimate's histogram is made at the first settle, in the warm-up.
   */
  @Test
  void entrySettleAndCloseAllocateNothing() {
    Weir weir = engine(RuleSet.of(FlowRule.qps("r", 1e9))
        .withParamFlow(List.of(ParamFlowRule.builder("r").count(1e9).build())));
    Object[] args = {"api-key-7"};
    long[] calls = {0};
    Resource resource = weir.resource("r");
    assertThat(allocatedBy(() -> {
      Entry entry = weir.entry("r", EntryType.OUT, (int) Math.min(10, resource.costEstimate(10)), args);
      entry.settle((calls[0]++ & 1) == 0 ? 4 : 17); // a refund, then a debt
      entry.close();
    })).isZero();
  }

  /**
   * An adaptive rule's entry and close, on a clock moving a microsecond per call so that rounds end
   * (one per 100 ms: the controller runs, under its lock, inside the measured windows), and its
   * refusal of a lower criticality at the limit.
   */
  @Test
  void anAdaptiveRuleAllocatesNothing() {
    Weir weir = engine(RuleSet.of(FlowRule.adaptive("r", 1, 1000, 20)));
    assertThat(allocatedBy(() -> {
      ticker.advanceNanos(1_000);
      weir.entry("r", EntryType.IN, 1, Criticality.SHEDDABLE, null).close();
    })).isZero();
    Weir full = engine(RuleSet.of(FlowRule.adaptive("full", 1, 1, 1)));
    Entry holding = full.entry("full");
    assertThat(allocatedBy(() -> full.tryEntry("full", EntryType.IN, 1, Criticality.SHEDDABLE, null))).isZero();
    holding.close();
  }

  @Test
  void aResourceWithoutRulesAllocatesNothing() {
    Weir weir = engine(RuleSet.empty());
    assertThat(allocatedBy(() -> weir.entry("r", EntryType.IN).close())).isZero();
  }

  @Test
  void tryEntryAdmittedAndRefusedAllocateNothing() {
    Weir weir = engine(RuleSet.of(FlowRule.qps("open", 1e9), FlowRule.qps("closed", 0)));
    assertThat(allocatedBy(() -> weir.tryEntry("open", EntryType.OUT, 1).close())).isZero();
    assertThat(allocatedBy(() -> {
      if (weir.tryEntry("closed", EntryType.OUT, 1) != null) {
        throw new AssertionError("a count of 0 admits nothing");
      }
    })).isZero();
    assertThat(weir.statistics("closed").totalBlocked()).as("every refusal counted").isEqualTo(2L * CALLS);
  }

  @Test
  void aKeyedDecisionAllocatesNothing() {
    Weir weir = engine(RuleSet.empty().withParamFlow(List.of(ParamFlowRule.builder("r").count(1e9).build())));
    Object[] args = {"api-key-7"};
    assertThat(allocatedBy(() -> weir.entry("r", EntryType.IN, 1, args).close())).isZero();
  }

  @Test
  void aCircuitBreakersAdmittedCallAllocatesNothing() {
    Weir weir = engine(RuleSet.empty().withDegrade(List.of(DegradeRule.builder("r")
        .strategy(DegradeStrategy.ERROR_RATIO).threshold(0.5).statInterval(Duration.ofSeconds(1)).build())));
    assertThat(allocatedBy(() -> weir.entry("r").close())).isZero();
  }

  @Test
  void nestedEntriesAllocateNothing() {
    Weir weir = engine(RuleSet.of(FlowRule.qps("outer", 1e9), FlowRule.qps("inner", 1e9)));
    assertThat(allocatedBy(() -> {
      try (Entry outer = weir.entry("outer"); Entry inner = weir.entry("inner")) {
        // both pooled, at depths 0 and 1
      }
    })).isZero();
  }

  /**
   * A call spent from a cluster lease ({@code weir.cluster.lease}) allocates nothing: one CAS on the
   * lease. The clock moves 100 ns a call, so blocks grow to what 5 ms of calls spend and are renewed
   * ahead; a renewal's objects (request, futures) are made once per block, which is what a window
   * may show, never once per call.
   */
  @Test
  void aCallSpentFromAClusterLeaseAllocatesNothingPerCall() {
    ScriptedClusterStore store = new ScriptedClusterStore();
    store.leasing = true;
    try (Weir weir = Weir.builder().ticker(ticker).sleeper(ticker)
        .cluster(store, ClusterOptions.DEFAULTS.withLease(true))
        .rules(RuleSet.of(FlowRule.builder("r").count(2e9).clusterMode(true).build())).build()) {
      long bytes = allocatedBy(() -> {
        ticker.advanceNanos(100);
        weir.entry("r").close();
      });
      assertThat(bytes).as("bytes in %d calls", CALLS).isLessThan(CALLS / 20);
      assertThat(weir.cluster().leaseRequests()).as("lease round trips").isLessThan(CALLS / 100);
    }
  }

  /**
   * With a coarse clock (a thread of the engine's own reads the ticker), the path allocates nothing
   * either. On the driven ticker, as the others: on the real clock a loaded machine stretched every
   * window past a statistics bucket's half-second, and each then showed the rollover's bucket.
   */
  @Test
  void aCoarseClocksEntryAndCloseAllocateNothing() {
    try (Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).clockResolution(Duration.ofMillis(1))
        .rules(RuleSet.of(FlowRule.qps("r", 1e9), FlowRule.qps("closed", 0))).build()) {
      assertThat(allocatedBy(() -> weir.entry("r").close())).isZero();
      assertThat(allocatedBy(() -> {
        if (weir.tryEntry("closed", EntryType.OUT, 1) != null) {
          throw new AssertionError("a count of 0 admits nothing");
        }
      })).isZero();
    }
  }

  /**
   * Through a {@link Resource} handle: entry and close, a refusal through {@code tryEntry}, a keyed
   * decision, and an asynchronous entry closed on the same thread; on the coarse clock, and on a
   * resource whose queue rule makes its calls read the ticker ({@code preciseTime}).
   */
  @Test
  void aResourceHandlesCallsAllocateNothing() {
    try (Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).clockResolution(Duration.ofMillis(1))
        .rules(RuleSet.of(FlowRule.qps("r", 1e9), FlowRule.qps("closed", 0),
            FlowRule.builder("paced").count(1e9).controlBehavior(dev.weir.rule.ControlBehavior.QUEUE)
                .maxQueueingTime(Duration.ofMillis(1)).build())
            .withParamFlow(List.of(ParamFlowRule.builder("keyed").count(1e9).build()))).build()) {
      Resource r = weir.resource("r");
      Resource closed = weir.resource("closed");
      Resource paced = weir.resource("paced");
      Resource keyed = weir.resource("keyed");
      Object[] args = {"api-key-7"};
      assertThat(allocatedBy(() -> r.entry().close())).isZero();
      assertThat(allocatedBy(() -> {
        if (closed.tryEntry(EntryType.OUT, 1) != null) {
          throw new AssertionError("a count of 0 admits nothing");
        }
      })).isZero();
      assertThat(allocatedBy(() -> {
        ticker.advanceNanos(1_000);
        paced.entry().close();
      })).isZero();
      assertThat(allocatedBy(() -> keyed.entry(EntryType.IN, 1, args).close())).isZero();
    }
  }
}
