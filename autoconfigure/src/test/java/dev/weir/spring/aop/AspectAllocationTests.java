package dev.weir.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weir.annotation.RateLimited;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.junit.jupiter.api.Test;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import org.reactivestreams.Subscription;

/**
 * What an admitted call of a {@code @RateLimited} method allocates through the aspect, after
 * warm-up: the thread's allocated bytes ({@code com.sun.management.ThreadMXBean}) over
 * {@value #CALLS} calls, the fewest of {@value #WINDOWS} windows, against the same calls of a
 * control bean proxied the same way by an interceptor that only proceeds. What the proxy allocates
 * of its own (its method invocation, the argument array, and, with kotlinx-coroutines-reactor on the
 * classpath, Spring's per-call check for a suspend function) is then the control's too, so a change
 * that adds an object per call to the aspect fails here: a plain method allocates nothing beyond the
 * control; a {@code Mono} method adds its guarded {@code Mono}, the one guarding subscriber of its
 * subscription and its asynchronous entry.
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

  /** Marks the control's methods. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  @interface Control {
  }

  /** The same methods, proxied by an interceptor that only proceeds. */
  public static class ControlWork {
    @Control
    public int plain(int x) {
      return x + 1;
    }

    @Control
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
      .withBean(ControlWork.class)
      .withBean("controlAdvisor", Advisor.class, () -> new DefaultPointcutAdvisor(
          AnnotationMatchingPointcut.forMethodAnnotation(Control.class), (MethodInterceptor) MethodInvocation::proceed))
      .withPropertyValues("weir.flow[0].resource=aspect.plain", "weir.flow[0].count=1000000000",
          "weir.flow[1].resource=aspect.mono", "weir.flow[1].count=1000000000");

  @Test
  void anAdmittedCallAllocatesNoMoreThanTheProxysOwn() {
    runner.run(context -> {
      Work work = context.getBean(Work.class);
      ControlWork control = context.getBean(ControlWork.class);
      assertThat(AopUtils.isCglibProxy(control)).isTrue();
      long controlBytes = fewest(() -> {
        long sum = 0;
        for (int i = 0; i < CALLS; i++) {
          sum += control.plain(i);
        }
        return sum;
      });
      long bytes = fewest(() -> {
        long sum = 0;
        for (int i = 0; i < CALLS; i++) {
          sum += work.plain(i);
        }
        return sum;
      });
      System.out.printf("admitted @RateLimited calls: %d bytes per %d calls (%.1f a call; control %.1f)%n", bytes,
          CALLS, bytes / (double) CALLS, controlBytes / (double) CALLS);
      // nothing beyond what the proxy allocates for any interceptor
      assertThat(bytes / (double) CALLS).as("bytes per admitted call")
          .isLessThanOrEqualTo(controlBytes / (double) CALLS + PLAIN_EXTRA);
    });
  }

  @Test
  void anAdmittedMonoSubscriptionAllocatesNoMoreThanBefore() {
    runner.run(context -> {
      Work work = context.getBean(Work.class);
      ControlWork control = context.getBean(ControlWork.class);
      Integer one = 1;
      Sink sink = new Sink();
      long controlBytes = fewest(() -> {
        for (int i = 0; i < CALLS; i++) {
          control.mono(one).subscribe(sink);
        }
        return sink.seen;
      });
      long bytes = fewest(() -> {
        for (int i = 0; i < CALLS; i++) {
          work.mono(one).subscribe(sink);
        }
        return sink.seen;
      });
      System.out.printf("admitted Mono subscriptions: %d bytes per %d calls (%.1f a call; control %.1f)%n", bytes,
          CALLS, bytes / (double) CALLS, controlBytes / (double) CALLS);
      assertThat(bytes / (double) CALLS).as("bytes per admitted Mono call")
          .isLessThanOrEqualTo(controlBytes / (double) CALLS + MONO_EXTRA);
    });
  }

  /*
   * Bytes a call beyond the control's, at most. The control allocates what any interceptor's call
   * does (the proxy's method invocation, the argument array, the boxed argument; Mono.just for the
   * Mono method), so a plain call adds nothing, and a Mono call adds the guarded Mono, the one
   * guarding subscriber and the detached entry: 216 bytes, measured so on JDK 17 with compressed
   * oops (408 bytes a call against the control's 192, with Kotlin coroutines on the classpath; 360
   * against 144 without, when the engine's handle came in).
   * One byte more for what a window may show of the JVM's own (a class loaded, code replaced)
   * spread over its calls.
   */
  static final double PLAIN_EXTRA = 1;
  static final double MONO_EXTRA = 216 + 1;

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
