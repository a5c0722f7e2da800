package dev.weir.spring.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Ticker;
import dev.weir.spring.test.ManualTicker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link RetryBudget} under deterministic interleavings: one thread is held at a chosen point of a
 * retry decision, with an old reading (of the clock, or of the window's counts), while the test
 * thread moves time on and takes every retry the budget has; then the held thread goes on. The
 * budget's bound must hold: never more retries in the window than its allowance.
 */
@Timeout(30)
class RetryBudgetInterleavingTests {

  private static final Duration WINDOW = Duration.ofSeconds(10);

  private final ManualTicker time = new ManualTicker();
  private final ExecutorService held = Executors.newSingleThreadExecutor(runnable -> {
    Thread thread = new Thread(runnable, "held-decision");
    thread.setDaemon(true);
    return thread;
  });
  private final CountDownLatch reached = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  @AfterEach
  void stop() {
    release.countDown();
    held.shutdownNow();
  }

  /** Blocks the held thread, once, until the test releases it. */
  private void holdOnce() {
    if (Thread.currentThread().getName().equals("held-decision") && reached.getCount() > 0) {
      reached.countDown();
      try {
        assertThat(release.await(20, TimeUnit.SECONDS)).isTrue();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void aThreadHoldingAnOldClockReadingDecidesInTheNewestWindow() throws Exception {
    AtomicReference<Long> oldReading = new AtomicReference<>();
    Ticker ticker = () -> {
      long reading = time.read();
      if (Thread.currentThread().getName().equals("held-decision") && oldReading.get() == null) {
        oldReading.set(reading);
        holdOnce();
      }
      return reading;
    };
    // ratio 1, no floor: one retry per first attempt of the window
    RetryBudget budget = new RetryBudget(ticker, 1, WINDOW, 0);
    RetryBudgetArithmeticTests.first(budget, 4);
    CompletableFuture<Long> decision = CompletableFuture.supplyAsync(budget::tryAcquireRetryPeriod, held);
    assertThat(reached.await(10, TimeUnit.SECONDS)).isTrue();

    // 11 s later the 4 first attempts have left the window; 3 new ones allow 3 retries, all taken
    time.advance(Duration.ofSeconds(11));
    RetryBudgetArithmeticTests.first(budget, 3);
    assertThat(RetryBudgetArithmeticTests.takeAll(budget)).isEqualTo(3);

    release.countDown();
    assertThat(decision.get(10, TimeUnit.SECONDS)).as("decided with the old reading, in the old window")
        .isEqualTo(RetryBudget.NONE);
    assertThat(budget.retries()).isEqualTo(3);
  }

  @Test
  void aThreadHeldBeforeItsCommitWhileThePeriodMovesOnTakesItsRetryBack() throws Exception {
    RetryBudget budget = new RetryBudget(time, 1, WINDOW, 0, this::holdOnce);
    RetryBudgetArithmeticTests.first(budget, 2);
    CompletableFuture<Long> decision = CompletableFuture.supplyAsync(budget::tryAcquireRetryPeriod, held);
    assertThat(reached.await(10, TimeUnit.SECONDS)).isTrue();
    // the held thread has read the window: 2 first attempts, no retry, room for 1 (2 actually)

    time.advance(Duration.ofSeconds(1));
    assertThat(RetryBudgetArithmeticTests.takeAll(budget)).as("the test thread takes both in the next period").isEqualTo(2);

    release.countDown();
    assertThat(decision.get(10, TimeUnit.SECONDS)).as("its commit in the old period is taken back; the new one is full")
        .isEqualTo(RetryBudget.NONE);
    assertThat(budget.retries()).isEqualTo(2);
    assertThat(budget.hasRoom()).isFalse();
  }

  @Test
  void aThreadHeldBeforeItsCommitInTheSamePeriodLosesTheRaceForTheLastRetry() throws Exception {
    RetryBudget budget = new RetryBudget(time, 1, WINDOW, 0, this::holdOnce);
    RetryBudgetArithmeticTests.first(budget, 1);
    CompletableFuture<Long> decision = CompletableFuture.supplyAsync(budget::tryAcquireRetryPeriod, held);
    assertThat(reached.await(10, TimeUnit.SECONDS)).isTrue();

    assertThat(budget.tryAcquireRetry()).isTrue();

    release.countDown();
    assertThat(decision.get(10, TimeUnit.SECONDS)).isEqualTo(RetryBudget.NONE);
    assertThat(budget.retries()).isEqualTo(1);
  }

  @Test
  void aThreadHeldBeforeItsCommitGetsTheRetryWhenThereIsStillRoom() throws Exception {
    RetryBudget budget = new RetryBudget(time, 1, WINDOW, 0, this::holdOnce);
    RetryBudgetArithmeticTests.first(budget, 2);
    CompletableFuture<Long> decision = CompletableFuture.supplyAsync(budget::tryAcquireRetryPeriod, held);
    assertThat(reached.await(10, TimeUnit.SECONDS)).isTrue();

    time.advance(Duration.ofSeconds(1));
    assertThat(budget.tryAcquireRetry()).isTrue();

    release.countDown();
    long period = decision.get(10, TimeUnit.SECONDS);
    assertThat(period).as("taken back from the old period, taken again in the new one")
        .isEqualTo(Math.floorDiv(time.read(), Duration.ofSeconds(1).toNanos()));
    assertThat(budget.retries()).isEqualTo(2);
    assertThat(budget.tryAcquireRetry()).isFalse();
  }
}
