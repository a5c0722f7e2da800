package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A {@code grade: adaptive} rule through the engine: every exit gives its place back, shadow mode
 * holds the calls it would refuse, criticality reaches the limit, a call with an old clock reading
 * is decided against the calls inside now, and real threads never exceed the cap.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class AdaptiveRuleTest {

  private final FakeTicker ticker = new FakeTicker();

  private Weir engine(FlowRule... rules) {
    return Weir.builder().ticker(ticker).sleeper(ticker).loadServiceSlots(false).rules(RuleSet.of(rules)).build();
  }

  /** Opens entries until one is refused; returns them (to close) — as many as the limit has room for. */
  private static List<Entry> fill(Weir weir, Criticality criticality) {
    List<Entry> open = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      Entry entry = weir.tryEntry("r", EntryType.OUT, 1, criticality, null);
      if (entry == null) {
        return open;
      }
      open.add(entry);
    }
    throw new AssertionError("no refusal in 100 calls");
  }

  private static void assertRoom(Weir weir, int room, String what) {
    List<Entry> open = fill(weir, Criticality.CRITICAL);
    assertThat(open).as(what).hasSize(room);
    closeAll(open);
  }

  private static void closeAll(List<Entry> entries) {
    for (int i = entries.size() - 1; i >= 0; i--) {
      entries.get(i).close();
    }
  }

  @Test
  void everyExitGivesItsPlaceBack() throws Exception {
    Weir weir = engine(FlowRule.adaptive("r", 1, 3, 3));
    closeAll(fill(weir, Criticality.CRITICAL)); // the limit holds 3
    // thrown out of try-with-resources
    for (int i = 0; i < 10; i++) {
      assertThatThrownBy(() -> {
        try (Entry entry = weir.entry("r")) {
          entry.recordError(new IllegalStateException("failed"));
          throw new IllegalStateException("failed");
        }
      }).isInstanceOf(IllegalStateException.class);
    }
    assertRoom(weir, 3, "room after failed calls");
    // cancelled
    for (int i = 0; i < 10; i++) {
      weir.entry("r").cancel();
    }
    assertRoom(weir, 3, "room after cancelled calls");
    // asynchronous, closed on other threads
    List<CompletableFuture<Void>> closes = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Entry entry = weir.asyncEntry("r", EntryType.OUT, 1, Criticality.CRITICAL, null);
      closes.add(CompletableFuture.runAsync(entry::close));
    }
    CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)).get(10, TimeUnit.SECONDS);
    assertRoom(weir, 3, "room after async calls");
  }

  @Test
  void aLaterRuleRefusingGivesThePlaceBack() {
    Weir weir = engine(FlowRule.adaptive("r", 1, 3, 3), FlowRule.builder("r").count(0).build());
    for (int i = 0; i < 10; i++) {
      assertThat(weir.tryEntry("r", EntryType.OUT, 1)).isNull();
    }
    weir.rules().replace("r", RuleSet.of(FlowRule.adaptive("r", 1, 3, 3)));
    assertRoom(weir, 3, "room after the refunds");
  }

  @Test
  void shadowModeHoldsTheCallsItWouldRefuseAndCountsThem() {
    Weir weir = engine(FlowRule.adaptive("r", 1, 2, 2).toBuilder().shadow(true).build());
    List<Entry> open = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Entry entry = weir.tryEntry("r", EntryType.OUT, 1);
      assertThat(entry).as("shadow mode refuses nothing").isNotNull();
      open.add(entry);
    }
    assertThat(weir.statistics("r").totalShadowBlocked(RuleKind.FLOW)).as("what it would have refused").isEqualTo(3);
    closeAll(open);
    // All five places were given back: in force again, the rule admits its two.
    weir.rules().replace("r", RuleSet.of(FlowRule.adaptive("r", 1, 2, 2)));
    assertThat(fill(weir, Criticality.CRITICAL)).hasSize(2);
  }

  @Test
  void newBoundsKeepTheCallsInside() {
    Weir weir = engine(FlowRule.adaptive("r", 1, 10, 5));
    List<Entry> open = fill(weir, Criticality.CRITICAL);
    assertThat(open).hasSize(5);
    weir.rules().replace("r", RuleSet.of(FlowRule.adaptive("r", 1, 3, 3)));
    assertThat(weir.statistics("r").adaptiveLimit()).isEqualTo(3);
    // The five calls inside still count: nothing is admitted until fewer than three are inside.
    for (int i = 0; i < 3; i++) {
      assertThat(weir.tryEntry("r", EntryType.OUT, 1, Criticality.CRITICAL_PLUS, null)).isNull();
      open.remove(open.size() - 1).close();
    }
    Entry third = weir.tryEntry("r", EntryType.OUT, 1, Criticality.CRITICAL_PLUS, null);
    assertThat(third).as("two inside, limit three").isNotNull();
    assertThat(weir.tryEntry("r", EntryType.OUT, 1, Criticality.CRITICAL_PLUS, null)).isNull();
    third.close();
    closeAll(open);
  }

  /**
   * Rounds of calls that fill the limit, each call ending as {@code end} says after {@code millis}:
   * first fast successes (the baseline), then slow failures. Returns the limit after them.
   */
  private int limitAfterSlowFailures(int slowRounds, java.util.function.Consumer<Entry> end) {
    Weir weir = engine(FlowRule.adaptive("r", 1, 100, 20));
    for (int round = 0; round < 40; round++) {
      List<Entry> open = fill(weir, Criticality.CRITICAL);
      ticker.advance(Duration.ofMillis(10));
      closeAll(open);
    }
    for (int round = 0; round < slowRounds; round++) {
      List<Entry> open = fill(weir, Criticality.CRITICAL);
      ticker.advance(Duration.ofMillis(400));
      for (int i = open.size() - 1; i >= 0; i--) {
        open.get(i).recordError(new IllegalStateException("slow dependency failed"));
        end.accept(open.get(i));
      }
    }
    return weir.statistics("r").adaptiveLimit();
  }

  @Test
  void aCancelAfterARecordedErrorIsAFailureAsACloseIs() {
    // Entry.cancel: "a cancel after recordError is a failed call, as a close". A slow failure is
    // evidence of a queue; a cancel that dropped it left the limit where the fast calls put it.
    int before = limitAfterSlowFailures(0, Entry::close);
    int closed = limitAfterSlowFailures(40, Entry::close);
    int cancelled = limitAfterSlowFailures(40, Entry::cancel);
    assertThat(closed).as("slow failures closed move the limit").isNotEqualTo(before);
    assertThat(cancelled).as("slow failures cancelled after recordError").isEqualTo(closed);
  }

  @Test
  void theStartingLimitIsTheStatisticsAdaptiveLimit() {
    Weir weir = engine(FlowRule.adaptive("r", 1, 50, 7));
    weir.tryEntry("r", EntryType.OUT, 1).close();
    assertThat(weir.statistics("r").adaptiveLimit()).isEqualTo(7);
  }

  @Test
  void aLateCallIsDecidedAgainstTheCallsInsideNow() {
    HoldingSlot holding = new HoldingSlot();
    Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).loadServiceSlots(false).slot(holding)
        .rules(RuleSet.of(FlowRule.adaptive("r", 1, 3, 3))).build();
    // The late call reads the clock, then waits before the rules while three calls fill the limit.
    HoldingSlot.Held<Boolean> late = holding.hold(() -> {
      Entry entry = weir.tryEntry("r", EntryType.OUT, 1);
      if (entry != null) {
        entry.close();
      }
      return entry != null;
    });
    ticker.advance(Duration.ofSeconds(1));
    List<Entry> open = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      open.add(weir.tryEntry("r", EntryType.OUT, 1));
    }
    assertThat(open).doesNotContainNull();
    assertThat(late.release()).as("the late call, with the limit full").isFalse();
    assertThat(weir.tryEntry("r", EntryType.OUT, 1)).isNull();
    closeAll(open);
  }

  @Test
  void aLateCallAfterRoundsMovedTheLimitStaysUnderIt() {
    HoldingSlot holding = new HoldingSlot();
    Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).loadServiceSlots(false).slot(holding)
        .rules(RuleSet.of(FlowRule.adaptive("r", 1, 40, 40))).build();
    HoldingSlot.Held<Boolean> late = holding.hold(() -> {
      Entry entry = weir.tryEntry("r", EntryType.OUT, 1, Criticality.CRITICAL_PLUS, null);
      if (entry != null) {
        entry.close();
      }
      return entry != null;
    });
    // Meanwhile rounds of slow calls with refusals: a queue, so the limit comes down.
    int bound = 40;
    for (int round = 0; round < 30; round++) {
      List<Entry> open = fill(weir, Criticality.CRITICAL);
      ticker.advance(Duration.ofMillis(500));
      closeAll(open);
      bound = weir.statistics("r").adaptiveLimit();
    }
    assertThat(bound).as("the limit moved").isLessThan(40);
    List<Entry> open = fill(weir, Criticality.CRITICAL_PLUS);
    assertThat(open).as("admitted up to the limit now").hasSize(weir.statistics("r").adaptiveLimit());
    assertThat(late.release()).as("the late call, with the limit full").isFalse();
    closeAll(open);
  }

  @Test
  void realThreadsNeverExceedTheCap() throws InterruptedException {
    Weir weir = Weir.builder().loadServiceSlots(false).rules(RuleSet.of(FlowRule.adaptive("r", 1, 6, 6))).build();
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    AtomicInteger admitted = new AtomicInteger();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    long run = TimeUnit.SECONDS.toNanos(3);
    for (int t = 0; t < 8; t++) {
      Thread thread = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          return;
        }
        long end = System.nanoTime() + run;
        Criticality[] all = Criticality.values();
        while (System.nanoTime() - end < 0) {
          Criticality criticality = all[ThreadLocalRandom.current().nextInt(all.length)];
          Entry entry = weir.tryEntry("r", EntryType.OUT, 1, criticality, null);
          if (entry == null) {
            Thread.onSpinWait();
            continue;
          }
          try {
            admitted.incrementAndGet();
            most.accumulateAndGet(inside.incrementAndGet(), Math::max);
            LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(200_000));
            inside.decrementAndGet();
          } finally {
            if (ThreadLocalRandom.current().nextInt(10) == 0) {
              entry.cancel();
            } else {
              entry.close();
            }
          }
        }
      });
      thread.start();
      threads.add(thread);
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join(TimeUnit.SECONDS.toMillis(20));
      assertThat(thread.isAlive()).isFalse();
    }
    assertThat(most.get()).as("most calls inside at once").isBetween(1, 6);
    assertThat(admitted.get()).as("calls admitted").isGreaterThan(100);
    int limit = weir.statistics("r").adaptiveLimit();
    assertThat(limit).isBetween(1, 6);
    assertThat(fill(weir, Criticality.CRITICAL_PLUS)).as("every place given back").hasSize(limit);
  }
}
