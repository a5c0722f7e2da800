package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.AuthorityRule;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Weir#asyncEntry}: entries of calls that complete later, on any thread, in any order. */
class AsyncEntryTest {

  private final FakeTicker ticker = new FakeTicker();

  @Test
  void anAsyncEntryDoesNotNestWithTheThreadsEntries() {
    Weir weir = Weir.builder().ticker(ticker).build();
    Entry first = weir.asyncEntry("async", EntryType.OUT, 1);
    Entry second = weir.asyncEntry("async", EntryType.OUT, 1);
    Entry sync = weir.entry("sync");
    first.close(); // opened before `sync` and `second`, closed while both are open: no complaint
    assertThat(sync.isOpen()).isTrue();
    assertThat(second.isOpen()).isTrue();
    sync.close();
    second.close();
    assertThat(weir.statistics("async").totalSucceeded()).isEqualTo(2);
    assertThat(weir.statistics("async").activeCalls()).isZero();
    assertThat(weir.statistics("sync").totalSucceeded()).isEqualTo(1);
  }

  @Test
  void anAsyncEntryHoldsItsThreadsPermitUntilClosedOnAnotherThread() throws Exception {
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.threads("r", 2))).build();
    Entry a = weir.asyncEntry("r", EntryType.OUT, 1);
    Entry b = weir.asyncEntry("r", EntryType.OUT, 1);
    assertThatThrownBy(() -> weir.asyncEntry("r", EntryType.OUT, 1)).isInstanceOf(FlowException.class);
    ticker.advance(Duration.ofMillis(30));
    CompletableFuture.runAsync(a::close).get(5, TimeUnit.SECONDS);
    assertThat(weir.statistics("r").activeCalls()).isEqualTo(1);
    Entry c = weir.asyncEntry("r", EntryType.OUT, 1);
    assertThat(weir.statistics("r").totalResponseTimeNanos()).isEqualTo(30_000_000L);
    b.close();
    c.close();
    c.close();
    ResourceStatistics stats = weir.statistics("r");
    assertThat(stats.totalPassed()).isEqualTo(3);
    assertThat(stats.totalBlocked()).isEqualTo(1);
    assertThat(stats.totalSucceeded()).isEqualTo(3);
    assertThat(stats.activeCalls()).isZero();
  }

  @Test
  void anErrorRecordedOnAnotherThreadCountsAsAFailure() throws Exception {
    Weir weir = Weir.builder().ticker(ticker).build();
    Entry entry = weir.asyncEntry("r", EntryType.OUT, 1);
    CompletableFuture.runAsync(() -> {
      entry.recordError(new IllegalStateException("boom"));
      entry.close();
    }).get(5, TimeUnit.SECONDS);
    assertThat(weir.statistics("r").totalFailed()).isEqualTo(1);
    assertThat(weir.statistics("r").totalSucceeded()).isZero();
  }

  @Test
  void anAsyncEntryTakesTheContextOfTheThreadThatOpensIt() {
    Weir weir = Weir.builder().ticker(ticker)
        .rules(RuleSet.of(AuthorityRule.allow("r", "partner"))).build();
    Entry allowed = weir.callInContext("ctx", "partner", () -> weir.asyncEntry("r", EntryType.OUT, 1));
    assertThat(allowed.origin()).isEqualTo("partner");
    assertThat(allowed.contextName()).isEqualTo("ctx");
    allowed.close();
    assertThatThrownBy(() -> weir.callInContext("ctx", "stranger", () -> weir.asyncEntry("r", EntryType.OUT, 1)))
        .isInstanceOf(AuthorityException.class);
  }

  @Test
  void aRefusedAsyncEntryLeavesNothingHeld() {
    Weir weir = Weir.builder().ticker(ticker)
        .rules(RuleSet.of(FlowRule.threads("r", 5), FlowRule.qps("r", 1))).build();
    weir.asyncEntry("r", EntryType.OUT, 1).close();
    assertThatThrownBy(() -> weir.asyncEntry("r", EntryType.OUT, 1)).isInstanceOf(FlowException.class);
    assertThat(weir.statistics("r").activeCalls()).isZero();
    ticker.advance(Duration.ofSeconds(1));
    for (int i = 0; i < 5; i++) {
      ticker.advance(Duration.ofSeconds(1));
      weir.asyncEntry("r", EntryType.OUT, 1); // left open: the threads rule has five places
    }
    ticker.advance(Duration.ofSeconds(1));
    assertThatThrownBy(() -> weir.asyncEntry("r", EntryType.OUT, 1))
        .as("the sixth open call meets the threads limit, not the qps one")
        .isInstanceOf(FlowException.class)
        .satisfies(e -> assertThat(((FlowException) e).rule()).isEqualTo(FlowRule.threads("r", 5)));
  }

  /**
   * Real threads: eight threads open async calls of a resource limited to four at a time and hand
   * each to a pool that completes it a little later, in any order. Counting from admission to
   * close, never more than four are in flight, and every attempt is either passed or blocked.
   */
  @Test
  @Timeout(30)
  void realThreadsNeverHaveMoreAsyncCallsInFlightThanTheLimit() throws Exception {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.threads("r", 4))).build();
    ExecutorService completers = Executors.newFixedThreadPool(3);
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger maxInFlight = new AtomicInteger();
    AtomicLong attempts = new AtomicLong();
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    Thread[] callers = new Thread[8];
    for (int t = 0; t < callers.length; t++) {
      callers[t] = new Thread(() -> {
        while (System.nanoTime() < end) {
          attempts.incrementAndGet();
          Entry entry;
          try {
            entry = weir.asyncEntry("r", EntryType.OUT, 1);
          } catch (BlockException refused) {
            continue;
          }
          maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
          completers.execute(() -> {
            try {
              if (ThreadLocalRandom.current().nextInt(4) == 0) {
                Thread.onSpinWait();
              }
              inFlight.decrementAndGet(); // before the close gives the place back
              entry.close();
            } catch (Throwable e) {
              errors.add(e);
            }
          });
        }
      });
      callers[t].start();
    }
    for (Thread caller : callers) {
      caller.join();
    }
    completers.shutdown();
    assertThat(completers.awaitTermination(20, TimeUnit.SECONDS)).isTrue();
    assertThat(errors).isEmpty();
    ResourceStatistics stats = weir.statistics("r");
    assertThat(maxInFlight.get()).isBetween(1, 4);
    assertThat(stats.totalPassed() + stats.totalBlocked()).isEqualTo(attempts.get());
    assertThat(stats.totalSucceeded()).isEqualTo(stats.totalPassed());
    assertThat(stats.activeCalls()).isZero();
    assertThat(stats.totalBlocked()).as("the limit was met").isPositive();
  }
}
