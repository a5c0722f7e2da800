package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.BlockException;
import dev.weir.Calls;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.FakeTicker;
import dev.weir.FlowException;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class EntryApiTest {

  private final FakeTicker ticker = new FakeTicker();
  private final Weir weir = Weir.builder().ticker(ticker).build();

  @Test
  void closeRecordsSuccessAndResponseTime() {
    try (Entry entry = weir.entry("r")) {
      ticker.advance(Duration.ofMillis(40));
    }
    ResourceStatistics stats = weir.statistics("r");
    assertThat(stats.totalPassed()).isEqualTo(1);
    assertThat(stats.totalSucceeded()).isEqualTo(1);
    assertThat(stats.totalFailed()).isZero();
    assertThat(stats.totalResponseTimeNanos()).isEqualTo(40_000_000L);
    assertThat(stats.avgRtMillis()).isEqualTo(40.0);
    assertThat(stats.minRtMillis()).isEqualTo(40.0);
    assertThat(stats.successQps()).isEqualTo(1);
    assertThat(stats.activeCalls()).isZero();
  }

  @Test
  void recordErrorMarksTheCallFailedAndIgnoresBlocks() {
    try (Entry entry = weir.entry("r")) {
      entry.recordError(new FlowException("inner", null, 0));
      assertThat(entry.error()).isNull();
      entry.recordError(new IllegalStateException("boom"));
      entry.recordError(new IllegalArgumentException("second"));
      assertThat(entry.error()).isInstanceOf(IllegalStateException.class);
    }
    assertThat(weir.statistics("r").totalFailed()).isEqualTo(1);
    assertThat(weir.statistics("r").exceptionQps()).isEqualTo(1);
    assertThat(weir.statistics("r").totalSucceeded()).isZero();
  }

  @Test
  void closeIsIdempotent() {
    Entry entry = weir.entry("r");
    entry.close();
    entry.close();
    assertThat(weir.statistics("r").totalSucceeded()).isEqualTo(1);
  }

  @Test
  void nestedEntriesCloseInReverseOrder() {
    try (Entry outer = weir.entry("outer")) {
      try (Entry inner = weir.entry("inner")) {
        assertThat(weir.statistics("inner").activeCalls()).isEqualTo(1);
      }
      assertThat(weir.statistics("outer").activeCalls()).isEqualTo(1);
    }
    assertThat(weir.statistics("outer").activeCalls()).isZero();
  }

  @Test
  void closingOutOfOrderClosesTheLaterEntriesAndThrows() {
    Weir limited = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.threads("inner", 1))).build();
    Entry outer = limited.entry("outer");
    Entry inner = limited.entry("inner");
    assertThatThrownBy(outer::close)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'outer'").hasMessageContaining("'inner'");
    assertThat(limited.statistics("inner").activeCalls()).isZero();
    assertThat(limited.statistics("outer").activeCalls()).isZero();
    inner.close(); // already closed: nothing happens
    assertThat(Calls.admitted(limited, "inner", 1)).as("the threads permit was released").isEqualTo(1);
  }

  @Test
  void anEntryMayBeClosedOnAnotherThread() throws Exception {
    Weir limited = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.threads("r", 1))).build();
    Entry entry = limited.entry("r");
    CompletableFuture.runAsync(entry::close).get();
    assertThat(limited.statistics("r").activeCalls()).isZero();
    // The frame closed elsewhere is popped by its owner; new entries work and nest normally.
    try (Entry again = limited.entry("r")) {
      try (Entry nested = limited.entry("other")) {
        assertThat(nested.resource()).isEqualTo("other");
      }
    }
    assertThat(limited.statistics("r").totalSucceeded()).isEqualTo(2);
  }

  @Test
  void blockedCallLeavesNoEntryBehind() {
    Weir limited = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.qps("r", 0))).build();
    try (Entry outer = limited.entry("outer")) {
      assertThat(Calls.tryOnce(limited, "r")).isNotNull();
    } // closing outer must not find an open entry above it
    assertThat(limited.statistics("outer").totalSucceeded()).isEqualTo(1);
    assertThat(limited.statistics("r").activeCalls()).isZero();
  }

  @Test
  void blockExceptionsAreStacklessAndDescribeThemselves() {
    Weir limited = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.qps("r", 0))).build();
    BlockException block = Calls.tryOnce(limited, "r");
    assertThat(block.getStackTrace()).isEmpty();
    assertThat(block.getMessage()).contains("flow").contains("'r'").contains("FlowRule");
    assertThat(block.retryAfter()).isEqualTo(Duration.ZERO);
  }

  @Test
  void argumentsAreValidated() {
    assertThatThrownBy(() -> weir.entry("r", EntryType.OUT, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> weir.entry(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void inboundCallsAreCountedInTheInboundNode() {
    Weir engine = Weir.builder().ticker(ticker).build();
    Calls.admitted(engine, "out", 2);
    try (Entry in = engine.entry("in", EntryType.IN)) {
      assertThat(in.entryType()).isEqualTo(EntryType.IN);
    }
    assertThat(engineInbound(engine).passedTotal()).isEqualTo(1);
  }

  private static StatisticNode engineInbound(Weir engine) {
    try {
      java.lang.reflect.Field field = Weir.class.getDeclaredField("engine");
      field.setAccessible(true);
      return ((dev.weir.internal.Engine) field.get(engine)).system.inbound;
    } catch (ReflectiveOperationException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void tryEntryDecidesAsEntryDoesAndAnswersARefusalWithNull() {
    Weir limited = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.qps("r", 2))).build();
    Entry first = limited.tryEntry("r", EntryType.IN, 1);
    Entry second = limited.tryEntry("r", EntryType.OUT, 1, "argument");
    assertThat(first).isNotNull();
    assertThat(second).isNotNull();
    assertThat(first.entryType()).isEqualTo(EntryType.IN);
    assertThat(limited.tryEntry("r", EntryType.OUT, 1)).as("the window's two permits are taken").isNull();
    assertThatThrownBy(() -> limited.entry("r")).as("entry decides the same").isInstanceOf(FlowException.class);
    second.close();
    first.close();
    ResourceStatistics statistics = limited.statistics("r");
    assertThat(statistics.totalPassed()).isEqualTo(2);
    assertThat(statistics.totalBlocked()).as("a refusal through tryEntry is counted as any other").isEqualTo(2);
    assertThat(statistics.totalBlocked(dev.weir.rule.RuleKind.FLOW)).isEqualTo(2);
    assertThat(statistics.activeCalls()).isZero();
  }

  @Test
  void aRefusalThroughTryEntryLeavesNothingForALaterEntry() {
    Weir limited = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.qps("closed", 0))).build();
    assertThat(limited.tryEntry("closed", EntryType.OUT, 1)).isNull();
    try (Entry open = limited.entry("open")) {
      assertThat(open.resource()).isEqualTo("open");
    }
    BlockException refused = Calls.tryOnce(limited, "closed");
    assertThat(refused).isInstanceOf(FlowException.class);
    assertThat(refused.resource()).isEqualTo("closed");
  }
}
