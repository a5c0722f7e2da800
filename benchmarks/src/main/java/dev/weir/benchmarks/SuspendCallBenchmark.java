package dev.weir.benchmarks;

import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.benchmarks.kotlin.PassThrough;
import dev.weir.benchmarks.kotlin.SuspendCalls;
import dev.weir.benchmarks.kotlin.SuspendDriver;
import java.util.concurrent.TimeUnit;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import org.springframework.aop.Advisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The cost of {@code @RateLimited} on a Kotlin {@code suspend} function, beside its cost on a
 * {@code Mono} method: four methods of one CGLIB-proxied bean ({@code SuspendCalls.kt}), each pair
 * the same work, one guarded by Weir (a rule that never refuses), one proxied by an interceptor that
 * only proceeds. So both sides of a pair pay the proxy, and the suspend pair Spring's coroutine
 * bridge (the call run as a {@code Mono} on {@code Dispatchers.Unconfined} and awaited); the
 * difference within a pair is what Weir adds.
 *
 * <ul>
 *   <li>{@code suspend_passThrough} / {@code suspend_weir}: the suspend function started as a
 *       coroutine in the benchmark thread ({@code SuspendDriver}), its result read when the start
 *       returns (the call never suspends; one that did would fail the run).
 *   <li>{@code mono_passThrough} / {@code mono_weir}: the {@code Mono} method called and its
 *       {@code Mono} subscribed by {@link ReactiveBenchmark}'s reused subscriber.
 * </ul>
 *
 * <p>The setup fails unless Weir counted the guarded calls of both kinds and left none active.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
@Threads(1)
public class SuspendCallBenchmark {

  static final int NEVER_REFUSING = 2_000_000_000;

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  public static class App {
    @Bean
    SuspendCalls calls() {
      return new SuspendCalls();
    }

    @Bean
    static Advisor passThroughAdvisor() {
      return new DefaultPointcutAdvisor(AnnotationMatchingPointcut.forMethodAnnotation(PassThrough.class),
          (MethodInterceptor) MethodInvocation::proceed);
    }
  }

  @State(Scope.Benchmark)
  public static class Calls {
    ConfigurableApplicationContext context;
    SuspendCalls calls;
    final ReactiveBenchmark.Sink sink = new ReactiveBenchmark.Sink();
    String name = "x";

    @Setup(Level.Trial)
    public void setUp(Blackhole blackhole) {
      sink.blackhole = blackhole;
      context = new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
          .bannerMode(Banner.Mode.OFF).logStartupInfo(false)
          .properties("weir.flow[0].resource=suspend-qps", "weir.flow[0].count=" + NEVER_REFUSING,
              "weir.flow[1].resource=mono-qps", "weir.flow[1].count=" + NEVER_REFUSING, "logging.level.root=WARN")
          .run();
      calls = context.getBean(SuspendCalls.class);
      if (!AopUtils.isCglibProxy(calls)) {
        throw new IllegalStateException("SuspendCalls is not proxied");
      }
      for (int i = 0; i < 5; i++) {
        check(SuspendDriver.guarded(calls, "check"));
        check(SuspendDriver.passThrough(calls, "check"));
        check(calls.guardedMono("check").block());
        check(calls.passThroughMono("check").block());
      }
      Weir weir = context.getBean(Weir.class);
      counted(weir.statistics("suspend-qps"));
      counted(weir.statistics("mono-qps"));
    }

    private static void check(String answer) {
      if (!"check".equals(answer)) {
        throw new IllegalStateException("unexpected answer " + answer);
      }
    }

    private static void counted(ResourceStatistics stats) {
      if (stats == null || stats.totalSucceeded() != 5 || stats.activeCalls() != 0) {
        throw new IllegalStateException("Weir did not count the calls: " + stats);
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      context.close();
    }
  }

  @Benchmark
  public String suspend_passThrough(Calls state) {
    return SuspendDriver.passThrough(state.calls, state.name);
  }

  @Benchmark
  public String suspend_weir(Calls state) {
    return SuspendDriver.guarded(state.calls, state.name);
  }

  @Benchmark
  public void mono_passThrough(Calls state) {
    state.calls.passThroughMono(state.name).subscribe(state.sink);
  }

  @Benchmark
  public void mono_weir(Calls state) {
    state.calls.guardedMono(state.name).subscribe(state.sink);
  }
}
