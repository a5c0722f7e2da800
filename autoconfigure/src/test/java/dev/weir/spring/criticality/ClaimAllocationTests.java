package dev.weir.spring.criticality;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Criticality;
import dev.weir.annotation.RateLimited;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.web.CriticalityClaim;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A request's claim costs a guarded call no allocation: an admitted call of an {@code @RateLimited}
 * method with a claim current allocates no more than without one. Measured as the project's other
 * allocation tests are (the thread's allocated bytes after warm-up, the fewest of
 * {@value #WINDOWS} windows of {@value #CALLS} calls, the two cases alternating).
 */
class ClaimAllocationTests {

  static final int CALLS = 100_000;
  static final int WARM_UP = 300_000;
  static final int WINDOWS = 5;

  /** A guarded method of the highest criticality, which every claim lowers. */
  public static class Work {
    @RateLimited(value = "open", criticality = Criticality.CRITICAL_PLUS)
    public int open(int x) {
      return x + 1;
    }
  }

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, WeirAutoConfiguration.class))
      .withBean(Work.class)
      .withPropertyValues("weir.flow[0].resource=open", "weir.flow[0].count=1000000000");

  @Test
  void anAdmittedCallAllocatesNoMoreWithAClaim() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    long[] fewest = {Long.MAX_VALUE, Long.MAX_VALUE};
    runner.run(context -> {
      Work work = context.getBean(Work.class);
      long sum = 0;
      for (int i = 0; i < 3; i++) {
        sum += run(work, WARM_UP / 3);
        try (CriticalityClaim.Scope claim = CriticalityClaim.open(Criticality.SHEDDABLE)) {
          sum += run(work, WARM_UP / 3);
        }
      }
      long[][] windows = new long[2][WINDOWS];
      for (int i = 0; i < WINDOWS; i++) {
        for (int claimed = 0; claimed < 2; claimed++) {
          try (CriticalityClaim.Scope claim = CriticalityClaim.open(claimed == 1 ? Criticality.SHEDDABLE : null)) {
            long before = threads.getThreadAllocatedBytes(thread);
            sum += run(work, CALLS);
            windows[claimed][i] = threads.getThreadAllocatedBytes(thread) - before;
          }
          fewest[claimed] = Math.min(fewest[claimed], windows[claimed][i]);
        }
      }
      System.out.printf("admitted calls, bytes per %d: windows without a claim %s, with one %s (checksum %d)%n",
          CALLS, Arrays.toString(windows[0]), Arrays.toString(windows[1]), sum);
    });
    assertThat(fewest[1]).as("bytes of %d admitted calls with a claim (without: %d)", CALLS, fewest[0])
        .isLessThanOrEqualTo(fewest[0] + CALLS / 2); // less than half a byte a call: nothing per call
  }

  private static long run(Work work, int calls) {
    long sum = 0;
    for (int i = 0; i < calls; i++) {
      sum += work.open(i);
    }
    return sum;
  }
}
