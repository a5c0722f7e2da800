package dev.weir.spring.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import dev.weir.spring.test.ManualTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link RetryBudget} on a driven ticker: the exact arithmetic of the allowance
 * ({@code ratio × first attempts + min-per-second × window}) and of the sliding window.
 */
class RetryBudgetArithmeticTests {

  private final ManualTicker ticker = new ManualTicker();

  @Test
  void theFloorAloneAllowsMinPerSecondTimesTheWindowInSeconds() {
    RetryBudget budget = new RetryBudget(ticker, 0.1, Duration.ofSeconds(10), 1);
    assertThat(takeAll(budget)).isEqualTo(10);
    assertThat(budget.retries()).isEqualTo(10);
    assertThat(budget.hasRoom()).isFalse();
  }

  @Test
  void firstAttemptsAddTheirRatio() {
    RetryBudget budget = new RetryBudget(ticker, 0.1, Duration.ofSeconds(10), 1);
    first(budget, 100);
    assertThat(budget.firstAttempts()).isEqualTo(100);
    assertThat(takeAll(budget)).isEqualTo(20);
    first(budget, 9);
    assertThat(budget.tryAcquireRetry()).as("109 first attempts allow 10.9 + 10, rounded down").isFalse();
    first(budget, 1);
    assertThat(budget.tryAcquireRetry()).as("110 first attempts allow 21").isTrue();
    assertThat(budget.tryAcquireRetry()).isFalse();
  }

  @Test
  void theAllowanceIsRoundedDown() {
    RetryBudget budget = new RetryBudget(ticker, 0.5, Duration.ofSeconds(1), 0);
    first(budget, 3);
    assertThat(takeAll(budget)).as("floor(0.5 x 3)").isEqualTo(1);
  }

  @Test
  void noRetriesWithoutFloorOrFirstAttempts() {
    RetryBudget budget = new RetryBudget(ticker, 0.1, Duration.ofSeconds(10), 0);
    assertThat(budget.hasRoom()).isFalse();
    assertThat(budget.tryAcquireRetry()).isFalse();
    assertThat(budget.retries()).isZero();
  }

  @Test
  void aPeekTakesNothing() {
    RetryBudget budget = new RetryBudget(ticker, 0, Duration.ofSeconds(1), 1);
    for (int i = 0; i < 5; i++) {
      assertThat(budget.hasRoom()).isTrue();
    }
    assertThat(budget.tryAcquireRetry()).isTrue();
    assertThat(budget.hasRoom()).isFalse();
  }

  @Test
  void countsLeaveTheWindowBucketByBucket() {
    // window 10 s in ten buckets of 1 s; floor 0, ratio 1: one retry per first attempt
    RetryBudget budget = new RetryBudget(ticker, 1, Duration.ofSeconds(10), 0);
    first(budget, 5);
    ticker.advance(Duration.ofSeconds(3));
    first(budget, 5);
    assertThat(takeAll(budget)).isEqualTo(10);
    ticker.advance(Duration.ofSeconds(6));
    assertThat(budget.firstAttempts()).as("9 s later both buckets are in the window").isEqualTo(10);
    assertThat(budget.tryAcquireRetry()).isFalse();
    ticker.advance(Duration.ofSeconds(1));
    assertThat(budget.firstAttempts()).as("10 s later the first bucket has left").isEqualTo(5);
    assertThat(budget.retries()).as("the retries, taken 3 s in, are still in").isEqualTo(10);
    assertThat(budget.tryAcquireRetry()).isFalse();
    ticker.advance(Duration.ofSeconds(3));
    assertThat(budget.firstAttempts()).isZero();
    assertThat(budget.retries()).isZero();
    first(budget, 2);
    assertThat(takeAll(budget)).isEqualTo(2);
  }

  @Test
  void aBucketReusedAfterAFullTurnStartsEmpty() {
    RetryBudget budget = new RetryBudget(ticker, 1, Duration.ofSeconds(10), 0);
    first(budget, 7);
    takeAll(budget);
    ticker.advance(Duration.ofSeconds(10));
    assertThat(budget.firstAttempts()).isZero();
    assertThat(budget.retries()).isZero();
    ticker.advance(Duration.ofSeconds(1000));
    assertThat(budget.firstAttempts()).isZero();
    assertThat(budget.hasRoom()).isFalse();
  }

  @Test
  void theWindowIsAWholeNumberOfBuckets() {
    assertThat(new RetryBudget(ticker, 0, Duration.ofMillis(15), 0).window()).isEqualTo(Duration.ofNanos(15_000_000));
    assertThat(new RetryBudget(ticker, 0, Duration.ofNanos(10_000_009), 0).window()).isEqualTo(Duration.ofMillis(10));
  }

  @Test
  void settingsOutOfRangeAreRefused() {
    assertThatIllegalArgumentException().isThrownBy(() -> new RetryBudget(ticker, -0.1, Duration.ofSeconds(1), 0))
        .withMessageContaining("ratio");
    assertThatIllegalArgumentException().isThrownBy(() -> new RetryBudget(ticker, Double.NaN, Duration.ofSeconds(1), 0));
    assertThatIllegalArgumentException()
        .isThrownBy(() -> new RetryBudget(ticker, 0.1, Duration.ofSeconds(1), Double.POSITIVE_INFINITY))
        .withMessageContaining("minPerSecond");
    assertThatIllegalArgumentException().isThrownBy(() -> new RetryBudget(ticker, 0.1, Duration.ofMillis(9), 1))
        .withMessageContaining("window");
    assertThatIllegalArgumentException().isThrownBy(() -> new RetryBudget(ticker, 0.1, Duration.ofDays(2), 1));
  }

  static void first(RetryBudget budget, int attempts) {
    for (int i = 0; i < attempts; i++) {
      budget.recordFirstAttempt();
    }
  }

  /** Takes retries until the budget refuses one (at most 10000); returns how many it gave. */
  static int takeAll(RetryBudget budget) {
    int taken = 0;
    while (taken < 10_000 && budget.tryAcquireRetry()) {
      taken++;
    }
    return taken;
  }
}
