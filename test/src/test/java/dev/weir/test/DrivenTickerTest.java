package dev.weir.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.Entry;
import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link DrivenTicker} on its own and driving an engine built by hand. */
class DrivenTickerTest {

  @Test
  void startsFarFromZeroUnlessGivenAStart() {
    long start = new DrivenTicker().read();
    assertThat(start).isNotZero();
    assertThat(start % 1_000_000).as("not a whole number of milliseconds").isNotZero();
    assertThat(new DrivenTicker().read()).as("every instance starts at the same reading").isEqualTo(start);
    assertThat(new DrivenTicker(42).read()).isEqualTo(42);
    assertThat(new DrivenTicker(0).read()).isZero();
  }

  @Test
  void readingMovesOnlyWhenAdvanced() {
    DrivenTicker ticker = new DrivenTicker(1_000);
    assertThat(ticker.read()).isEqualTo(1_000);
    assertThat(ticker.read()).isEqualTo(1_000);
    assertThat(ticker.advance(Duration.ofMillis(3))).isSameAs(ticker);
    assertThat(ticker.read()).isEqualTo(3_001_000);
    assertThat(ticker.advanceNanos(7)).isSameAs(ticker);
    assertThat(ticker.read()).isEqualTo(3_001_007);
    ticker.advance(Duration.ofSeconds(2).plusNanos(1)).advanceNanos(0).advance(Duration.ZERO);
    assertThat(ticker.read()).isEqualTo(2_003_001_008L);
    assertThat(ticker.slept()).as("advancing is not sleeping").isZero();
  }

  @Test
  void refusesToGoBack() {
    DrivenTicker ticker = new DrivenTicker(500);
    assertThatThrownBy(() -> ticker.advance(Duration.ofNanos(-1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("only goes forward");
    assertThatThrownBy(() -> ticker.advanceNanos(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1 ns");
    assertThatThrownBy(() -> ticker.advance(null)).isInstanceOf(NullPointerException.class);
    assertThat(ticker.read()).isEqualTo(500);
  }

  @Test
  void wrapsAroundLikeNanoTime() {
    DrivenTicker ticker = new DrivenTicker(Long.MAX_VALUE);
    ticker.advanceNanos(2);
    assertThat(ticker.read()).isEqualTo(Long.MIN_VALUE + 1);
    assertThat(ticker.read() - Long.MAX_VALUE).as("the difference is still right").isEqualTo(2);
  }

  /** A sleep of an hour returns at once: one that really slept is stopped by the timeout (a hang guard). */
  @Test
  @Timeout(60)
  void sleepingAdvancesAtOnceAndIsRecorded() throws InterruptedException {
    DrivenTicker ticker = new DrivenTicker(0);
    ticker.sleep(Duration.ofHours(1).toNanos());
    ticker.sleep(250);
    assertThat(ticker.read()).isEqualTo(Duration.ofHours(1).toNanos() + 250);
    assertThat(ticker.slept()).isEqualTo(Duration.ofHours(1).plusNanos(250));
    ticker.sleep(0);
    ticker.sleep(-10);
    assertThat(ticker.read()).as("a wait of no time does not move the clock").isEqualTo(Duration.ofHours(1).toNanos() + 250);
    assertThat(ticker.slept()).isEqualTo(Duration.ofHours(1).plusNanos(250));
    assertThat(ticker).hasToString("DrivenTicker[read=3600000000250ns, slept=PT1H0.00000025S]");
  }

  @Test
  void sleepOfAnInterruptedThreadThrowsWithoutAdvancing() {
    DrivenTicker ticker = new DrivenTicker(0);
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> ticker.sleep(1_000)).isInstanceOf(InterruptedException.class);
    assertThat(Thread.currentThread().isInterrupted()).as("flag cleared, as by a real sleep").isFalse();
    assertThat(ticker.read()).isZero();
    assertThat(ticker.slept()).isZero();
  }

  @Test
  void concurrentAdvancesAndSleepsAreNeverLost() throws Exception {
    DrivenTicker ticker = new DrivenTicker(0);
    int threads = 4;
    int perThread = 50_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        boolean sleeper = t % 2 == 0;
        done.add(pool.submit(() -> {
          go.await();
          for (int i = 0; i < perThread; i++) {
            if (sleeper) {
              ticker.sleep(3);
            } else {
              ticker.advanceNanos(1);
            }
          }
          return null;
        }));
      }
      go.countDown();
      for (Future<?> future : done) {
        future.get(30, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(ticker.read()).isEqualTo(2L * perThread * 3 + 2L * perThread);
    assertThat(ticker.slept()).isEqualTo(Duration.ofNanos(2L * perThread * 3));
  }

  @Test
  void drivesTheWindowOfAnEngineBuiltByHand() {
    DrivenTicker ticker = new DrivenTicker();
    try (Weir weir = Weir.builder().ticker(ticker).sleeper(ticker)
        .rules(RuleSet.of(FlowRule.qps("r", 2))).build()) {
      assertThat(weir.ticker()).isSameAs(ticker);
      weir.entry("r").close();
      weir.entry("r").close();
      assertThatThrownBy(() -> weir.entry("r")).isInstanceOf(FlowException.class);
      assertThatThrownBy(() -> weir.entry("r")).as("time stands still").isInstanceOf(FlowException.class);
      ticker.advance(Duration.ofSeconds(1));
      weir.entry("r").close();
      weir.entry("r").close();
      assertThatThrownBy(() -> weir.entry("r")).isInstanceOf(FlowException.class);
    }
  }

  @Test
  void queuedCallsProceedAtOnceAndTheWaitIsSeen() {
    DrivenTicker ticker = new DrivenTicker();
    FlowRule queue = FlowRule.builder("r").count(10).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(Duration.ofSeconds(1)).build();
    try (Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).rules(RuleSet.of(queue)).build()) {
      long start = ticker.read();
      List<Long> admitted = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        try (Entry entry = weir.entry("r")) {
          admitted.add(ticker.read() - start);
        }
      }
      // 10 per second: one every 100 ms, the first at once.
      assertThat(admitted).containsExactly(0L, 100_000_000L, 200_000_000L, 300_000_000L);
      assertThat(ticker.slept()).isEqualTo(Duration.ofMillis(300));
    }
  }
}
