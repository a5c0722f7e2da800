package dev.weir.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weir.annotation.RateLimited;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import org.reactivestreams.Subscription;

/**
 * What an admitted call of a {@code @RateLimited} method allocates through the aspect, after
 * warm-up: the thread's allocated bytes ({@code com.sun.management.ThreadMXBean}) over
 * {@value #CALLS} calls, the fewest of {@value #WINDOWS} windows. The bounds are what the aspect
 * allocated when the engine's handle ({@code dev.weir.Resource}) came in, so that a change that
 * adds an object per call fails here: a plain method allocates nothing of the aspect's but the
 * proxy's invocation and the argument array; a {@code Mono} method adds its guarded {@code Mono},
 * the one guarding subscriber of its subscription and its asynchronous entry.
 */
class AspectAllocationTests {

  static final int CALLS = 100_000;
  static final int WARM_UP = 300_000;
  static final int WINDOWS = 5;

  /** Guarded methods with a limit never reached. */
  public static class Work {
    @RateLimited("aspect.plain")
    public int plain(int x) {
      return x + 1;
    }

    @RateLimited("aspect.mono")
    public Mono<Integer> mono(Integer x) {
      return Mono.just(x);
    }
  }

  /** Takes everything, keeps nothing. */
  static final class Sink implements CoreSubscriber<Object> {
    long seen;

    @Override
    public void onSubscribe(Subscription subscription) {
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(Object value) {
      seen++;
    }

    @Override
    public void onError(Throwable failure) {
      throw new AssertionError(failure);
    }

    @Override
    public void onComplete() {
      seen++;
    }
  }

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, WeirAutoConfiguration.class))
      .withBean(Work.class)
      .withPropertyValues("weir.flow[0].resource=aspect.plain", "weir.flow[0].count=1000000000",
          "weir.flow[1].resource=aspect.mono", "weir.flow[1].count=1000000000");

  @Test
  void anAdmittedCallAllocatesNoMoreThanTheProxysOwn() {
    runner.run(context -> {
      Work work = context.getBean(Work.class);
      long bytes = fewest(() -> {
        long sum = 0;
        for (int i = 0; i < CALLS; i++) {
          sum += work.plain(i);
        }
        return sum;
      });
      System.out.printf("admitted @RateLimited calls: %d bytes per %d calls (%.1f a call)%n", bytes, CALLS,
          bytes / (double) CALLS);
      // the method invocation of the CGLIB proxy and the boxed argument's array: no more
      assertThat(bytes / (double) CALLS).as("bytes per admitted call").isLessThanOrEqualTo(PLAIN_BOUND);
    });
  }

  @Test
  void anAdmittedMonoSubscriptionAllocatesNoMoreThanBefore() {
    runner.run(context -> {
      Work work = context.getBean(Work.class);
      Integer one = 1;
      Sink sink = new Sink();
      long bytes = fewest(() -> {
        for (int i = 0; i < CALLS; i++) {
          work.mono(one).subscribe(sink);
        }
        return sink.seen;
      });
      System.out.printf("admitted Mono subscriptions: %d bytes per %d calls (%.1f a call)%n", bytes, CALLS,
          bytes / (double) CALLS);
      assertThat(bytes / (double) CALLS).as("bytes per admitted Mono call").isLessThanOrEqualTo(MONO_BOUND);
    });
  }

  /*
   * Bytes a call, at most: what the aspect allocated before and after the calls went through the
   * engine's handle (128 and 360 bytes, measured so on JDK 17 with compressed oops), plus one byte
   * for what a window may show of the JVM's own (a class loaded, code replaced) spread over its calls.
   * The plain call is the proxy's method invocation, the argument array and the boxed argument; the
   * Mono call adds Mono.just, the guarded Mono, the one guarding subscriber and the detached entry.
   */
  static final double PLAIN_BOUND = 128 + 1;
  static final double MONO_BOUND = 360 + 1;

  @FunctionalInterface
  interface Loop {
    long run();
  }

  private static long fewest(Loop loop) {
    com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadAllocatedMemorySupported(), "this JVM does not count a thread's allocations");
    threads.setThreadAllocatedMemoryEnabled(true);
    long thread = Thread.currentThread().getId();
    long checksum = 0;
    for (int i = 0; i < WARM_UP / CALLS; i++) {
      checksum += loop.run();
    }
    long[] windows = new long[WINDOWS];
    long fewest = Long.MAX_VALUE;
    for (int i = 0; i < WINDOWS; i++) {
      long before = threads.getThreadAllocatedBytes(thread);
      checksum += loop.run();
      windows[i] = threads.getThreadAllocatedBytes(thread) - before;
      fewest = Math.min(fewest, windows[i]);
    }
    System.out.printf("windows %s (checksum %d)%n", Arrays.toString(windows), checksum);
    return fewest;
  }
}
