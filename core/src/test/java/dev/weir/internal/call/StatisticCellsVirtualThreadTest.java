package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * Statistics cells with virtual threads: they count in the shared cells only (atomically), so
 * totals are exact and a node keeps at most {@link Cells#COUNT} rows however many virtual threads
 * called it. Needs JDK 21+; the build's {@code virtual-threads} profile runs it on Temurin 25.
 */
@Tag("virtual-threads")
@EnabledForJreRange(min = JRE.JAVA_21,
    disabledReason = "virtual threads need JDK 21+; the build's virtual-threads profile runs this on Temurin 25")
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class StatisticCellsVirtualThreadTest {

  private static ExecutorService virtualThreadPerTask() throws ReflectiveOperationException {
    return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
  }

  /**
   * 1 000 virtual threads, 200 inbound calls each (a tenth recording an error, and as many refused
   * by a limit of 0), all at once on the real clock: every count adds up, and none went into an
   * owned cell.
   */
  @Test
  void totalsAreExactAcrossVirtualThreads() throws Exception {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.qps("closed", 0))).build();
    int threads = 1_000;
    int calls = 200;
    ExecutorService executor = virtualThreadPerTask();
    try {
      for (int t = 0; t < threads; t++) {
        executor.execute(() -> {
          for (int i = 0; i < calls; i++) {
            try (Entry entry = weir.entry("open", EntryType.IN)) {
              if (i % 10 == 0) {
                entry.recordError(new IllegalStateException("counted as failed"));
              }
            }
            if (weir.tryEntry("closed", EntryType.IN, 1) != null) {
              throw new AssertionError("a limit of 0 admits nothing");
            }
          }
        });
      }
    } finally {
      awaitAll(executor);
    }
    long total = (long) threads * calls;
    ResourceNode open = (ResourceNode) weir.statistics("open");
    assertThat(open.totalPassed()).isEqualTo(total);
    assertThat(open.totalFailed()).isEqualTo(total / 10);
    assertThat(open.totalSucceeded()).isEqualTo(total - total / 10);
    assertThat(open.activeCalls()).isZero();
    assertThat(weir.statistics("closed").totalBlocked(RuleKind.FLOW)).isEqualTo(total);
    StatisticNode inbound = StatisticCellsTest.inbound(weir);
    assertThat(inbound.passedTotal()).isEqualTo(total);
    assertThat(inbound.blockedBy(RuleKind.FLOW)).isEqualTo(total);
    assertThat(inOwnedCells(open, Cells.PASSED)).as("counted by virtual threads in owned cells").isZero();
  }

  /**
   * 100 000 virtual threads, one call each: the resource's statistics keep at most
   * {@link Cells#COUNT} rows (the shared ones only), and every call is counted.
   */
  @Test
  void cellsStayAtTheBoundAfterAHundredThousandVirtualThreads() throws Exception {
    Weir weir = Weir.builder().build();
    int threads = 100_000;
    ExecutorService executor = virtualThreadPerTask();
    try {
      for (int t = 0; t < threads; t++) {
        executor.execute(() -> weir.entry("r", EntryType.IN).close());
      }
    } finally {
      awaitAll(executor);
    }
    ResourceNode node = (ResourceNode) weir.statistics("r");
    assertThat(node.totalPassed()).isEqualTo(threads);
    assertThat(node.totalSucceeded()).isEqualTo(threads);
    assertThat(node.cellsInUse()).isBetween(1, Cells.SHARED);
    assertThat(StatisticCellsTest.inbound(weir).cellsInUse()).isBetween(1, Cells.SHARED);
    assertThat(inOwnedCells(node, Cells.PASSED)).isZero();
  }

  private static long inOwnedCells(StatisticNode node, int counter) {
    long sum = 0;
    for (int cell = 0; cell < Cells.OWNED; cell++) {
      sum += node.inCell(cell, counter);
    }
    return sum;
  }

  private static void awaitAll(ExecutorService executor) throws InterruptedException {
    executor.shutdown();
    assertThat(executor.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
  }
}
