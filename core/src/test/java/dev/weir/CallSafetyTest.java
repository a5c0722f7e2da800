package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import java.lang.ref.WeakReference;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Nothing leaks and nothing is closed twice: exceptions in the chain, late closes, discarded engines. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CallSafetyTest {

  /** An argument whose hash code throws, as a user's broken key does. */
  private static final class Poison {
    @Override
    public int hashCode() {
      throw new IllegalStateException("poisoned hashCode");
    }
  }

  @Test
  void anExceptionInTheChainGivesBackEveryPermitAlreadyTaken() {
    // Threads limit 1 on argument 0 is taken first; argument 1 then throws from its hashCode.
    Weir weir = Weir.builder().rules(RuleSet.empty().withParamFlow(List.of(
        ParamFlowRule.builder("r").grade(FlowGrade.THREADS).count(1).paramIndex(0).build(),
        ParamFlowRule.builder("r").grade(FlowGrade.THREADS).count(1).paramIndex(1).build()))).build();
    for (int i = 0; i < 1_000; i++) {
      assertThatThrownBy(() -> weir.entry("r", EntryType.OUT, 1, "user", new Poison()))
          .isInstanceOf(IllegalStateException.class).hasMessage("poisoned hashCode");
    }
    // The place of "user" was refunded every time: it is free now, and holds its limit of one.
    try (Entry entry = weir.entry("r", EntryType.OUT, 1, "user", "fine")) {
      assertThatThrownBy(() -> weir.entry("r", EntryType.OUT, 1, "user", "other"))
          .isInstanceOf(ParamFlowException.class);
    } catch (BlockException unexpected) {
      throw new AssertionError(unexpected);
    }
  }

  @Test
  void anExceptionInTheChainLeavesTheThreadsCallStackAsItWas() throws BlockException {
    Weir weir = Weir.builder().rules(RuleSet.empty().withParamFlow(List.of(
        ParamFlowRule.builder("r").count(100).paramIndex(0).build()))).build();
    try (Entry outer = weir.entry("outer")) {
      for (int i = 0; i < 1_000; i++) {
        assertThatThrownBy(() -> weir.entry("r", EntryType.OUT, 1, new Poison()))
            .isInstanceOf(IllegalStateException.class);
      }
      // The frames were popped: the next entry nests directly under the outer one, and closing the
      // outer one afterwards does not find a thousand abandoned frames above it.
      Entry inner = weir.entry("inner");
      inner.close();
    }
    assertThat(weir.statistics("outer").passedLastMinute()).isEqualTo(1);
  }

  /** A custom slot whose exit throws an Error, as a slot hit by an OutOfMemoryError would. */
  private static final class ExitFails extends dev.weir.spi.ProcessorSlot {
    @Override
    public int order() {
      return 0;
    }

    @Override
    public void exit(dev.weir.spi.Invocation invocation) {
      throw new AssertionError("exit failed");
    }
  }

  @Test
  void anErrorFromAnExitSlotStillGivesThePlaceBack() throws BlockException {
    Weir weir = Weir.builder().slot(new ExitFails()).rules(RuleSet.of(FlowRule.threads("r", 1))).build();
    Entry entry = weir.entry("r");
    assertThatThrownBy(entry::close).isInstanceOf(AssertionError.class).hasMessage("exit failed");
    assertThat(entry.isOpen()).isFalse();
    assertThatThrownBy(() -> weir.entry("r").close()).as("the place was given back: admitted, then the exit fails again")
        .isInstanceOf(AssertionError.class);
  }

  /*
   * An entry of Weir.entry is the thread's pooled call state, reused by its next call at the same
   * depth (so that guarding a call allocates nothing): a second close is a no-op only until then.
   * Work whose close may come twice, or from elsewhere, takes an asyncEntry, whose state is never
   * reused: its late close, from any thread, never touches a later call. (This test asserted that
   * of Weir.entry too, before entries were pooled; see the Entry class comment.)
   */

  @Test
  void aLateCloseOfAnAsyncEntryFromAnotherThreadNeverClosesALaterCall() throws Exception {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.threads("r", 1))).build();
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      Entry first = weir.asyncEntry("r", EntryType.OUT, 1);
      first.close(); // the work completes...
      Entry second = weir.entry("r"); // ...the thread makes its next call
      // A second close of the first entry, from another thread (a cancellation racing the completion).
      CompletableFuture.runAsync(first::close, other).get(5, TimeUnit.SECONDS);
      assertThat(second.isOpen()).isTrue();
      CompletableFuture<Boolean> intruder = CompletableFuture.supplyAsync(() -> {
        try (Entry entry = weir.entry("r")) {
          return true;
        } catch (BlockException refused) {
          return false;
        }
      }, other);
      assertThat(intruder.get(5, TimeUnit.SECONDS)).as("the limit of one still holds").isFalse();
      second.close();
      assertThat(CompletableFuture.supplyAsync(() -> Calls.tryOnce(weir, "r") == null, other)
          .get(5, TimeUnit.SECONDS)).isTrue();
    } finally {
      other.shutdownNow();
    }
  }

  @Test
  void aSecondCloseBeforeTheThreadsNextCallDoesNothing() throws Exception {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.threads("r", 1))).build();
    Entry entry = weir.entry("r");
    entry.recordError(new IllegalStateException("failed"));
    entry.close();
    CompletableFuture.runAsync(entry::close).get(5, TimeUnit.SECONDS); // from another thread, too
    entry.close();
    entry.recordError(new IllegalStateException("too late"));
    ResourceStatistics statistics = weir.statistics("r");
    assertThat(statistics.totalPassed()).isEqualTo(1);
    assertThat(statistics.totalFailed()).isEqualTo(1);
    assertThat(statistics.activeCalls()).isZero();
    assertThat(Calls.admitted(weir, "r", 1)).as("the one place is free").isEqualTo(1);
  }

  @Test
  void aDiscardedEngineIsCollectedAlthoughThreadsThatUsedItLiveOn() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      WeakReference<Weir> ref = useAndDrop(pool);
      for (int i = 0; i < 50 && ref.get() != null; i++) {
        System.gc();
        Thread.sleep(20);
      }
      assertThat(ref.get()).as("the engine, still reachable from the pool threads' thread-locals?").isNull();
    } finally {
      pool.shutdownNow();
    }
  }

  private static WeakReference<Weir> useAndDrop(ExecutorService pool) throws Exception {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.qps("r", 1_000))).build();
    for (int i = 0; i < 4; i++) {
      pool.submit(() -> Calls.admitted(weir, "r", 10)).get(5, TimeUnit.SECONDS);
    }
    weir.close();
    return new WeakReference<>(weir);
  }
}
