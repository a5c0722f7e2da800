package dev.weir.benchmarks;

import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.annotation.RateLimited;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.common.ratelimiter.configuration.CommonRateLimiterConfigurationProperties.InstanceProperties;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import io.github.resilience4j.spring6.fallback.configure.FallbackConfiguration;
import io.github.resilience4j.spring6.ratelimiter.configure.RateLimiterConfiguration;
import io.github.resilience4j.spring6.ratelimiter.configure.RateLimiterConfigurationProperties;
import io.github.resilience4j.spring6.spelresolver.configure.SpelResolverConfiguration;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.reactor.bulkhead.operator.BulkheadOperator;
import io.github.resilience4j.reactor.ratelimiter.operator.RateLimiterOperator;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
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
import org.reactivestreams.Subscription;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

/**
 * One guarded asynchronous call: a subscription to a {@code Mono.just(x)}, and a
 * {@code CompletableFuture} completed at once. Weir guards them as users do, through
 * {@code @RateLimited} methods of a Spring bean's proxy (its cost is included); Resilience4j through
 * its {@code @RateLimiter} annotation on a {@code Mono} method of a proxied bean (the same path), and
 * through its Reactor operators ({@code RateLimiterOperator}, {@code BulkheadOperator}, applied with
 * {@code transformDeferred} as its documentation does) and its {@code decorateCompletionStage}
 * decorators, without a proxy. {@code plain_mono} is the unguarded floor. Weir's rate rule and
 * Resilience4j's limiter never refuse; Weir's threads rule and the bulkhead have room for every
 * call. The setup fails unless Weir counted its calls.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
@Threads(1)
public class ReactiveBenchmark {

  static final int NEVER_REFUSING = 2_000_000_000;

  public static class WeirReactiveService {
    @RateLimited("reactive-qps")
    public Mono<String> monoQps(String name) {
      return Mono.just(name);
    }

    @RateLimited("reactive-threads")
    public Mono<String> monoThreads(String name) {
      return Mono.just(name);
    }

    @RateLimited("reactive-qps")
    public CompletableFuture<String> futureQps(String name) {
      return CompletableFuture.completedFuture(name);
    }
  }

  public static class Resilience4jReactiveService {
    @io.github.resilience4j.ratelimiter.annotation.RateLimiter(name = "reactive-annotation")
    public Mono<String> monoRateLimiter(String name) {
      return Mono.just(name);
    }
  }

  /**
   * Resilience4j's annotation on a {@code Mono} method, as in {@link AnnotationBenchmark}: its spring6
   * aspect, which hands a {@code Mono} to its Reactor extension ({@code resilience4j-reactor} is on
   * the classpath) and so applies {@code RateLimiterOperator} per call.
   */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import({RateLimiterConfiguration.class, FallbackConfiguration.class, SpelResolverConfiguration.class})
  public static class Resilience4jReactiveApp {
    @Bean
    RateLimiterConfigurationProperties rateLimiterConfigurationProperties() {
      RateLimiterConfigurationProperties properties = new RateLimiterConfigurationProperties();
      properties.getInstances().put("reactive-annotation", new InstanceProperties()
          .setLimitForPeriod(NEVER_REFUSING).setLimitRefreshPeriod(Duration.ofSeconds(1))
          .setTimeoutDuration(Duration.ZERO));
      return properties;
    }

    @Bean
    Resilience4jReactiveService service() {
      return new Resilience4jReactiveService();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  public static class WeirApp {
    @Bean
    WeirReactiveService service() {
      return new WeirReactiveService();
    }
  }

  /** Takes every value into the blackhole; reusable, one subscription after another on one thread. */
  static final class Sink implements CoreSubscriber<Object> {
    Blackhole blackhole;

    @Override
    public void onSubscribe(Subscription subscription) {
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(Object value) {
      blackhole.consume(value);
    }

    @Override
    public void onError(Throwable failure) {
      blackhole.consume(failure);
    }

    @Override
    public void onComplete() {
    }
  }

  @State(Scope.Thread)
  public static class Input {
    final Sink sink = new Sink();
    String name = "x";

    @Setup(Level.Trial)
    public void setUp(Blackhole blackhole) {
      sink.blackhole = blackhole;
    }
  }

  @State(Scope.Benchmark)
  public static class WeirState {
    ConfigurableApplicationContext context;
    WeirReactiveService service;

    @Setup(Level.Trial)
    public void setUp() {
      context = new SpringApplicationBuilder(WeirApp.class).web(WebApplicationType.NONE)
          .bannerMode(Banner.Mode.OFF).logStartupInfo(false)
          .properties("weir.flow[0].resource=reactive-qps", "weir.flow[0].count=" + NEVER_REFUSING,
              "weir.flow[1].resource=reactive-threads", "weir.flow[1].grade=threads",
              "weir.flow[1].count=" + NEVER_REFUSING, "logging.level.root=WARN")
          .run();
      service = context.getBean(WeirReactiveService.class);
      for (int i = 0; i < 5; i++) {
        service.monoQps("check").block();
        service.monoThreads("check").block();
        service.futureQps("check").join();
      }
      Weir weir = context.getBean(Weir.class);
      check(weir.statistics("reactive-qps"), 10);
      check(weir.statistics("reactive-threads"), 5);
    }

    private static void check(ResourceStatistics stats, long calls) {
      if (stats == null || stats.totalSucceeded() != calls || stats.activeCalls() != 0) {
        throw new IllegalStateException("Weir did not count the calls: " + stats);
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      context.close();
    }
  }

  @State(Scope.Benchmark)
  public static class Resilience4jAnnotationState {
    ConfigurableApplicationContext context;
    Resilience4jReactiveService service;

    @Setup(Level.Trial)
    public void setUp() {
      context = AnnotationBenchmark.start(Resilience4jReactiveApp.class, "weir.enabled=false");
      service = context.getBean(Resilience4jReactiveService.class);
      if (!org.springframework.aop.support.AopUtils.isAopProxy(service)) {
        throw new IllegalStateException("Resilience4j's aspect did not proxy the service");
      }
      RateLimiter limiter = context.getBean(RateLimiterRegistry.class).rateLimiter("reactive-annotation");
      long before = limiter.getMetrics().getAvailablePermissions();
      service.monoRateLimiter("check").block(); // the permission is taken on subscription
      if (limiter.getMetrics().getAvailablePermissions() >= before) {
        throw new IllegalStateException("Resilience4j did not count the subscription");
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      context.close();
    }
  }

  @State(Scope.Benchmark)
  public static class Resilience4jState {
    RateLimiter rateLimiter;
    Bulkhead bulkhead;
    RateLimiterOperator<String> rateLimiterOperator;
    BulkheadOperator<String> bulkheadOperator;
    Supplier<CompletionStage<String>> limitedFuture;
    Supplier<CompletionStage<String>> bulkheadFuture;

    @Setup(Level.Trial)
    public void setUp() {
      rateLimiter = RateLimiter.of("reactive", RateLimiterConfig.custom().limitForPeriod(NEVER_REFUSING)
          .limitRefreshPeriod(Duration.ofSeconds(1)).timeoutDuration(Duration.ZERO).build());
      bulkhead = Bulkhead.of("reactive", BulkheadConfig.custom().maxConcurrentCalls(NEVER_REFUSING)
          .maxWaitDuration(Duration.ZERO).build());
      rateLimiterOperator = RateLimiterOperator.of(rateLimiter);
      bulkheadOperator = BulkheadOperator.of(bulkhead);
      limitedFuture = RateLimiter.decorateCompletionStage(rateLimiter, () -> CompletableFuture.completedFuture("x"));
      bulkheadFuture = Bulkhead.decorateCompletionStage(bulkhead, () -> CompletableFuture.completedFuture("x"));
    }
  }

  @Benchmark
  public void plain_mono(Input input) {
    Mono.just(input.name).subscribe(input.sink);
  }

  @Benchmark
  public void weir_monoQps(WeirState weir, Input input) {
    weir.service.monoQps(input.name).subscribe(input.sink);
  }

  @Benchmark
  public void weir_monoThreads(WeirState weir, Input input) {
    weir.service.monoThreads(input.name).subscribe(input.sink);
  }

  @Benchmark
  public void resilience4j_monoRateLimiter(Resilience4jState r4j, Input input) {
    Mono.just(input.name).transformDeferred(r4j.rateLimiterOperator).subscribe(input.sink);
  }

  @Benchmark
  public void resilience4j_monoAnnotation(Resilience4jAnnotationState r4j, Input input) {
    r4j.service.monoRateLimiter(input.name).subscribe(input.sink);
  }

  @Benchmark
  public void resilience4j_monoBulkhead(Resilience4jState r4j, Input input) {
    Mono.just(input.name).transformDeferred(r4j.bulkheadOperator).subscribe(input.sink);
  }

  @Benchmark
  public String weir_futureQps(WeirState weir, Input input) {
    return weir.service.futureQps(input.name).join();
  }

  @Benchmark
  public String resilience4j_futureRateLimiter(Resilience4jState r4j) {
    return r4j.limitedFuture.get().toCompletableFuture().join();
  }

  @Benchmark
  public String resilience4j_futureBulkhead(Resilience4jState r4j) {
    return r4j.bulkheadFuture.get().toCompletableFuture().join();
  }
}
