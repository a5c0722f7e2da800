package dev.weir.spring.observation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weir.BlockException;
import dev.weir.annotation.RateLimited;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.observation.WeirObservationAutoConfiguration;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * With an {@link ObservationRegistry}, an admitted call of an {@code @RateLimited} method inside an
 * observation allocates no more than without one: refusals in traces cost nothing on the admitted
 * path. Measured as the project's other allocation tests are (the thread's allocated bytes, after
 * warm-up, the fewest of up to {@value #WINDOWS} windows of {@value #CALLS} calls); the control shows
 * the measurement sees what the observer allocates on the refusal path.
 */
class ObservedAllocationTests {

  static final int CALLS = 100_000;
  static final int WARM_UP = 300_000;
  static final int WINDOWS = 5;

  /** A guarded method: admitted ({@code open}, no limit reached) or refused and answered by its handler. */
  public static class Work {
    @RateLimited("open")
    public int open(int x) {
      return x + 1;
    }

    @RateLimited(value = "closed", blockHandler = "refused")
    public int closed(int x) {
      return x + 1;
    }

    int refused(int x, BlockException refusal) {
      return -x;
    }
  }

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, WeirAutoConfiguration.class,
          WeirObservationAutoConfiguration.class))
      .withBean(Work.class)
      .withPropertyValues("weir.flow[0].resource=open", "weir.flow[0].count=1000000000",
          "weir.flow[1].resource=closed", "weir.flow[1].count=0");

  @Test
  void anAdmittedCallAllocatesNoMoreWithAnObservationRegistry() {
    long[] bytes = measureBoth(Work::open);
    System.out.printf("admitted @RateLimited calls, bytes per %d calls: without a registry %d, with one %d%n", CALLS,
        bytes[0], bytes[1]);
    assertThat(bytes[1]).as("bytes of %d admitted calls with a registry (without: %d)", CALLS, bytes[0])
        .isLessThanOrEqualTo(bytes[0] + CALLS / 2); // less than half a byte a call: nothing per call
  }

  /** The control: on the refusal path, the observer's key values and event are seen allocating. */
  @Test
  void theMeasurementSeesWhatTheObserverAllocatesOnARefusal() {
    long[] bytes = measureBoth(Work::closed);
    System.out.printf("refused @RateLimited calls, bytes per %d calls: without a registry %d, with one %d%n", CALLS,
        bytes[0], bytes[1]);
    assertThat(bytes[1] - bytes[0]).as("the observer's allocations on %d refusals", CALLS)
        .isGreaterThanOrEqualTo(CALLS * 16L);
  }

  /**
   * The fewest bytes of {@value #CALLS} calls of {@code method}, without a registry and with one (in
   * an observation), measured in two contexts that live side by side: both are warmed up first and
   * their windows alternate, so that the JIT has seen both proxies before either is measured (a
   * proxy measured after another context's was compiled shows more allocation, whichever it is).
   */
  private long[] measureBoth(MethodCall method) {
    com.sun.management.ThreadMXBean threads = threads();
    long[] fewest = {Long.MAX_VALUE, Long.MAX_VALUE};
    runner.run(without -> runner.withBean(ObservationRegistry.class, ObservedAllocationTests::registry).run(with -> {
      Work plain = work(without);
      Work observed = work(with);
      Observation observation = Observation.start("work", with.getBean(ObservationRegistry.class));
      long thread = Thread.currentThread().getId();
      long sum = 0;
      try (Observation.Scope scope = observation.openScope()) {
        for (int i = 0; i < 3; i++) {
          sum += run(plain, method, WARM_UP / 3) + run(observed, method, WARM_UP / 3);
        }
        long[][] windows = new long[2][WINDOWS];
        for (int i = 0; i < WINDOWS; i++) {
          Work[] works = {plain, observed};
          for (int which = 0; which < 2; which++) {
            long before = threads.getThreadAllocatedBytes(thread);
            sum += run(works[which], method, CALLS);
            windows[which][i] = threads.getThreadAllocatedBytes(thread) - before;
            fewest[which] = Math.min(fewest[which], windows[which][i]);
          }
        }
        System.out.printf("windows without %s, with %s (checksum %d)%n", Arrays.toString(windows[0]),
            Arrays.toString(windows[1]), sum);
      } finally {
        observation.stop();
      }
    }));
    return fewest;
  }

  /** A call of one of {@link Work}'s methods. */
  @FunctionalInterface
  interface MethodCall {
    int call(Work work, int x);
  }

  private static Work work(ApplicationContext context) {
    Work work = context.getBean(Work.class);
    assertThat(org.springframework.aop.support.AopUtils.isAopProxy(work)).as("guarded").isTrue();
    return work;
  }

  /** A registry whose observations are not no-ops: one handler, which takes every context and does nothing. */
  private static ObservationRegistry registry() {
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(new ObservationHandler<>() {
      @Override
      public boolean supportsContext(Observation.Context context) {
        return true;
      }
    });
    return registry;
  }

  private static com.sun.management.ThreadMXBean threads() {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadAllocatedMemorySupported(), "this JVM does not count a thread's allocations");
    threads.setThreadAllocatedMemoryEnabled(true);
    return threads;
  }

  private static long run(Work work, MethodCall method, int times) {
    long sum = 0;
    for (int i = 0; i < times; i++) {
      sum += method.call(work, i);
    }
    return sum;
  }
}
