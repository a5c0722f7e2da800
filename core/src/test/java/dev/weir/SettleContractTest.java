package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link Entry#settle}: once, before close, not negative, from any thread for an async entry. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SettleContractTest {

  private final FakeTicker ticker = new FakeTicker();
  private final Weir weir = Weir.builder().ticker(ticker).sleeper(ticker)
      .rules(RuleSet.of(FlowRule.builder("r").count(100).build())).build();

  @Test
  void aSecondSettleThrowsAndTheFirstStands() {
    try (Entry entry = weir.entry("r", EntryType.OUT, 10)) {
      entry.settle(4);
      assertThatThrownBy(() -> entry.settle(1)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("'r'").hasMessageContaining("settled already");
    }
  }

  @Test
  void negativePermitsAreRefusedAndLeaveTheEntryUnsettled() {
    try (Entry entry = weir.entry("r", EntryType.OUT, 10)) {
      assertThatThrownBy(() -> entry.settle(-1)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("-1").hasMessageContaining("'r'");
      entry.settle(10); // not settled by the refused call
    }
  }

  @Test
  void aSettleAfterCloseThrows() {
    Entry entry = weir.asyncEntry("r", EntryType.OUT, 10);
    entry.close();
    assertThatThrownBy(() -> entry.settle(3)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void anAsyncEntrySettlesFromAnotherThread() throws Exception {
    Entry entry = weir.asyncEntry("r", EntryType.OUT, 60);
    Thread other = new Thread(() -> entry.settle(0));
    other.start();
    other.join();
    assertThat(entry.isOpen()).isTrue();
    entry.close();
    // the 60 permits were given back: 100 more fit in the window
    for (int i = 0; i < 100; i++) {
      assertThat(Calls.tryOnce(weir, "r")).isNull();
    }
    assertThat(Calls.tryOnce(weir, "r")).isNotNull();
  }

  /** Two threads settle one async entry at once, many times: exactly one settles, the other throws. */
  @Test
  void ofTwoRacingSettlesExactlyOneWins() throws Exception {
    for (int round = 0; round < 2_000; round++) {
      Entry entry = weir.asyncEntry("free", EntryType.OUT, 1); // no rule: the race is the entry's alone
      AtomicInteger settled = new AtomicInteger();
      AtomicInteger refused = new AtomicInteger();
      CyclicBarrier start = new CyclicBarrier(2);
      CountDownLatch done = new CountDownLatch(2);
      Runnable settle = () -> {
        try {
          start.await();
          entry.settle(0);
          settled.incrementAndGet();
        } catch (IllegalStateException expected) {
          refused.incrementAndGet();
        } catch (Exception e) {
          throw new AssertionError(e);
        } finally {
          done.countDown();
        }
      };
      new Thread(settle).start();
      new Thread(settle).start();
      done.await();
      entry.close();
      assertThat(settled.get()).as("round %d", round).isEqualTo(1);
      assertThat(refused.get()).as("round %d", round).isEqualTo(1);
    }
  }

  /** A close racing a settle completes after it: nothing is lost, the entry ends closed. */
  @Test
  void aCloseRacingASettleCompletesTheCall() throws Exception {
    for (int round = 0; round < 2_000; round++) {
      Entry entry = weir.asyncEntry("free", EntryType.OUT, 1);
      CyclicBarrier start = new CyclicBarrier(2);
      Thread settler = new Thread(() -> {
        try {
          start.await();
          entry.settle(0);
        } catch (IllegalStateException closedFirst) {
          // the close won: a settle after close throws
        } catch (Exception e) {
          throw new AssertionError(e);
        }
      });
      settler.start();
      start.await();
      entry.close();
      settler.join();
      assertThat(entry.isOpen()).isFalse();
    }
    assertThat(weir.statistics("free").activeCalls()).isZero();
  }
}
