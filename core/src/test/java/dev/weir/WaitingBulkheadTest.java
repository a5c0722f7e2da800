package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@code threads} rule with a {@code max-queueing-time}: a call over the limit waits for a place,
 * first in first out within its criticality, up to its deadline, at most {@code max-queueing-count}
 * of them. Driven ticker: time moves only when the test moves it, so each deadline is exact, and a
 * waiter is handed an old start reading by moving the clock after it started waiting.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class WaitingBulkheadTest {

  private final FakeTicker ticker = new FakeTicker();
  private final List<Thread> threads = new CopyOnWriteArrayList<>();

  private static FlowRule waiting(int count, Duration wait, int maxWaiting) {
    return FlowRule.builder("r").grade(FlowGrade.THREADS).count(count).maxQueueingTime(wait)
        .maxQueueingCount(maxWaiting).build();
  }

  private Weir engine(FlowRule rule) {
    return Weir.builder().ticker(ticker).rules(RuleSet.of(rule)).build();
  }

  /** A call on a thread of its own that holds its entry until {@code release} counts down. */
  private final class Caller {
    final CompletableFuture<Boolean> admitted = new CompletableFuture<>();
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch closed = new CountDownLatch(1);

    Caller(Weir weir, Criticality criticality, BlockingQueue<String> order, String name) {
      Thread thread = new Thread(() -> {
        try (ContextScope scope = weir.enterContext("c", null, criticality);
            Entry entry = weir.entry("r")) {
          order.add(name);
          admitted.complete(true);
          release.await();
        } catch (BlockException refused) {
          admitted.complete(false);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          closed.countDown();
        }
      }, "caller-" + name);
      threads.add(thread);
      thread.start();
    }

    void leave() throws InterruptedException {
      release.countDown();
      assertThat(closed.await(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @AfterEach
  void stopThreads() throws InterruptedException {
    for (Thread thread : threads) {
      thread.interrupt();
      thread.join(5_000);
    }
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      assertThat(System.nanoTime() - deadline).as("condition not met within 10 s").isNegative();
      Thread.sleep(1);
    }
  }

  @Test
  void aFreedPlaceGoesToTheWaitersInArrivalOrder() throws Exception {
    Weir weir = engine(waiting(1, Duration.ofSeconds(1), 2));
    BlockingQueue<String> order = new LinkedBlockingQueue<>();
    Entry holder = weir.entry("r");
    Caller first = new Caller(weir, Criticality.CRITICAL, order, "first");
    await(() -> weir.statistics("r").waitingCalls() == 1);
    Caller second = new Caller(weir, Criticality.CRITICAL, order, "second");
    await(() -> weir.statistics("r").waitingCalls() == 2);

    holder.close();
    assertThat(first.admitted.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(weir.statistics("r").activeCalls()).isEqualTo(1);
    assertThat(second.admitted).isNotDone();
    first.leave();
    assertThat(second.admitted.get(10, TimeUnit.SECONDS)).isTrue();
    second.leave();
    assertThat(order).containsExactly("first", "second");
    assertThat(weir.statistics("r").activeCalls()).isZero();
    assertThat(weir.statistics("r").waitingCalls()).isZero();
  }

  @Test
  void theQueueHoldsAtMostMaxQueueingCountAndDefaultsToCount() throws Exception {
    Weir weir = engine(waiting(2, Duration.ofSeconds(1), 0));
    BlockingQueue<String> order = new LinkedBlockingQueue<>();
    Entry a = weir.entry("r");
    Entry b = weir.entry("r");
    Caller w1 = new Caller(weir, Criticality.CRITICAL, order, "w1");
    Caller w2 = new Caller(weir, Criticality.CRITICAL, order, "w2");
    await(() -> weir.statistics("r").waitingCalls() == 2);
    FlowException refused = (FlowException) Calls.tryOnce(weir, "r");
    assertThat(refused).as("the default bound is count (2): a third waiter is refused at once").isNotNull();
    assertThat(weir.statistics("r").waitingCalls()).isEqualTo(2);
    b.close();
    a.close();
    assertThat(w1.admitted.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(w2.admitted.get(10, TimeUnit.SECONDS)).isTrue();
    w1.leave();
    w2.leave();
    assertThat(weir.statistics("r").activeCalls()).isZero();
  }

  @Test
  void aWaiterIsRefusedAtItsDeadlineAndNeverAdmittedAfterIt() throws Exception {
    Weir weir = engine(waiting(1, Duration.ofMillis(100), 5));
    BlockingQueue<String> order = new LinkedBlockingQueue<>();
    Entry holder = weir.entry("r");
    Caller late = new Caller(weir, Criticality.CRITICAL, order, "late");
    await(() -> weir.statistics("r").waitingCalls() == 1);
    ticker.advance(Duration.ofMillis(99));
    Thread.sleep(30); // the waiter looks at the clock at least every 10 ms of real time
    assertThat(late.admitted).as("99 ms of 100: still waiting").isNotDone();
    ticker.advance(Duration.ofMillis(2));
    assertThat(late.admitted.get(10, TimeUnit.SECONDS)).as("past its deadline").isFalse();
    assertThat(weir.statistics("r").waitingCalls()).isZero();
    holder.close();
    assertThat(weir.statistics("r").activeCalls()).isZero();
    assertThat(weir.statistics("r").totalBlocked()).isEqualTo(1);
  }

  @Test
  void aHandOffSkipsAWaiterWhoseDeadlineHasPassed() throws Exception {
    // The deterministic interleaving: the waiter's deadline passes while it is parked, and the
    // release comes before the waiter wakes to notice. The hand-off must not admit it late.
    Weir weir = engine(waiting(1, Duration.ofMillis(100), 5));
    BlockingQueue<String> order = new LinkedBlockingQueue<>();
    Entry holder = weir.entry("r");
    Caller late = new Caller(weir, Criticality.CRITICAL, order, "late");
    await(() -> weir.statistics("r").waitingCalls() == 1);
    ticker.advance(Duration.ofMillis(101));
    holder.close(); // the hand-off reads 101 ms: past the deadline
    assertThat(late.admitted.get(10, TimeUnit.SECONDS)).isFalse();
    assertThat(order).isEmpty();
    assertThat(Calls.tryOnce(weir, "r")).as("the freed place is free").isNull();
  }

  @Test
  void moreCriticalWaitersGoFirstAndEachCriticalityIsFifo() throws Exception {
    Weir weir = engine(waiting(1, Duration.ofSeconds(1), 10));
    BlockingQueue<String> order = new LinkedBlockingQueue<>();
    Entry holder = weir.entry("r");
    Caller s1 = new Caller(weir, Criticality.SHEDDABLE, order, "s1");
    await(() -> weir.statistics("r").waitingCalls() == 1);
    Caller c1 = new Caller(weir, Criticality.CRITICAL, order, "c1");
    await(() -> weir.statistics("r").waitingCalls() == 2);
    Caller s2 = new Caller(weir, Criticality.SHEDDABLE, order, "s2");
    await(() -> weir.statistics("r").waitingCalls() == 3);
    Caller c2 = new Caller(weir, Criticality.CRITICAL, order, "c2");
    await(() -> weir.statistics("r").waitingCalls() == 4);
    holder.close();
    for (Caller next : List.of(c1, c2, s1, s2)) {
      assertThat(next.admitted.get(10, TimeUnit.SECONDS)).isTrue();
      assertThat(weir.statistics("r").activeCalls()).as("one place: one inside").isEqualTo(1);
      next.leave();
    }
    assertThat(order).containsExactly("c1", "c2", "s1", "s2");
  }

  @Test
  void aNewCallQueuesBehindWaitersInsteadOfTakingAFreedPlace() throws Exception {
    Weir weir = engine(waiting(1, Duration.ofSeconds(1), 10));
    BlockingQueue<String> order = new LinkedBlockingQueue<>();
    Entry holder = weir.entry("r");
    Caller waiter = new Caller(weir, Criticality.CRITICAL, order, "waiter");
    await(() -> weir.statistics("r").waitingCalls() == 1);
    holder.close();
    assertThat(waiter.admitted.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(weir.statistics("r").activeCalls()).as("the place went to the waiter").isEqualTo(1);
    Caller next = new Caller(weir, Criticality.CRITICAL, order, "next");
    await(() -> weir.statistics("r").waitingCalls() == 1);
    assertThat(next.admitted).isNotDone();
    waiter.leave();
    assertThat(next.admitted.get(10, TimeUnit.SECONDS)).isTrue();
    next.leave();
    assertThat(order).containsExactly("waiter", "next");
  }

  @Test
  void anInterruptedWaiterIsRefusedAndKeepsItsInterrupt() throws Exception {
    Weir weir = engine(waiting(1, Duration.ofSeconds(1), 10));
    Entry holder = weir.entry("r");
    CompletableFuture<Boolean> interruptKept = new CompletableFuture<>();
    Thread waiter = new Thread(() -> {
      try (Entry entry = weir.entry("r")) {
        interruptKept.complete(null);
      } catch (BlockException refused) {
        interruptKept.complete(Thread.currentThread().isInterrupted());
      }
    });
    threads.add(waiter);
    waiter.start();
    await(() -> weir.statistics("r").waitingCalls() == 1);
    waiter.interrupt();
    assertThat(interruptKept.get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(weir.statistics("r").waitingCalls()).isZero();
    holder.close();
    assertThat(weir.statistics("r").activeCalls()).isZero();
  }

  @Test
  void aRuleChangeKeepsTheCallsInsideAndThoseWaiting() throws Exception {
    Weir weir = engine(waiting(1, Duration.ofSeconds(1), 10));
    BlockingQueue<String> order = new LinkedBlockingQueue<>();
    Entry holder = weir.entry("r");
    Caller waiter = new Caller(weir, Criticality.CRITICAL, order, "waiter");
    await(() -> weir.statistics("r").waitingCalls() == 1);
    weir.rules().replace("r", RuleSet.of(waiting(1, Duration.ofSeconds(2), 1)));
    assertThat(weir.statistics("r").waitingCalls()).as("the waiter is still queued").isEqualTo(1);
    assertThat(Calls.tryOnce(weir, "r")).as("the holder still counts, and the one waiter fills the new bound")
        .isInstanceOf(FlowException.class);
    holder.close();
    assertThat(waiter.admitted.get(10, TimeUnit.SECONDS)).isTrue();
    waiter.leave();
    weir.rules().replace("r", RuleSet.of(FlowRule.threads("r", 1)));
    Entry again = weir.entry("r");
    assertThat(Calls.tryOnce(weir, "r")).as("without a max-queueing-time: refused at once").isInstanceOf(FlowException.class);
    again.close();
    assertThat(weir.statistics("r").activeCalls()).isZero();
  }

  @Test
  void withoutAMaxQueueingTimeAThreadsRuleRefusesAtOnceAsBefore() {
    FlowRule plain = FlowRule.threads("r", 1);
    assertThat(plain.maxQueueingTime()).isZero();
    assertThat(plain.waitingBound()).isZero();
    Weir weir = engine(plain);
    Entry holder = weir.entry("r");
    assertThatThrownBy(() -> weir.entry("r")).isInstanceOf(FlowException.class);
    holder.close();
  }
}
