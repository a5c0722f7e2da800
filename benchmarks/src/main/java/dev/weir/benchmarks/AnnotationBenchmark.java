package dev.weir.benchmarks;

import com.alibaba.csp.sentinel.annotation.SentinelResource;
import com.alibaba.csp.sentinel.annotation.aspectj.SentinelResourceAspect;
import com.alibaba.csp.sentinel.node.ClusterNode;
import com.alibaba.csp.sentinel.slots.block.RuleConstant;
import com.alibaba.csp.sentinel.slots.block.flow.FlowRule;
import com.alibaba.csp.sentinel.slots.block.flow.FlowRuleManager;
import com.alibaba.csp.sentinel.slots.clusterbuilder.ClusterBuilderSlot;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.annotation.RateLimited;
import dev.weir.spring.aop.RateLimitedAdvisor;
import io.github.resilience4j.common.ratelimiter.configuration.CommonRateLimiterConfigurationProperties.InstanceProperties;
import io.github.resilience4j.ratelimiter.RateLimiterRegistry;
import io.github.resilience4j.spring6.fallback.configure.FallbackConfiguration;
import io.github.resilience4j.spring6.ratelimiter.configure.RateLimiterAspect;
import io.github.resilience4j.spring6.ratelimiter.configure.RateLimiterConfiguration;
import io.github.resilience4j.spring6.ratelimiter.configure.RateLimiterConfigurationProperties;
import io.github.resilience4j.spring6.spelresolver.configure.SpelResolverConfiguration;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.aspectj.lang.ProceedingJoinPoint;
import org.aspectj.lang.annotation.Around;
import org.aspectj.lang.annotation.Aspect;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.springframework.aop.Advisor;
import org.springframework.aop.aspectj.AbstractAspectJAdvice;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

/**
 * The cost of one call of an annotated method of a Spring bean, through the bean's proxy: a plain
 * call (no proxy), a no-op AspectJ {@code @Around} aspect, Weir's {@code @RateLimited}, Sentinel's
 * {@code @SentinelResource} and Resilience4j's {@code @RateLimiter}. Benchmarks are named
 * {@code annotation_<engine>}; {@code report.py} puts each beside Weir's and checks issue 7's targets.
 *
 * <p>Every variant is a real Spring Boot application ({@link SpringApplicationBuilder}, no web,
 * {@code @EnableAutoConfiguration}, so Boot's own AOP auto-configuration creates the proxies, CGLIB
 * as Boot's default {@code spring.aop.proxy-target-class=true}), in its own JMH {@link State}, set up
 * only in the forks of its own benchmark. Weir's annotation is applied by the auto-configuration's
 * advisor, from {@code weir.flow[0].*} properties; the other contexts run with
 * {@code weir.enabled=false}. Each limiter has a rule or limit that never refuses; the guarded
 * method is the same everywhere ({@code String hello(String)} returning its argument).
 *
 * <p>Each state's {@code @Setup} fails the trial unless its calls really go through its guard: the
 * bean is a CGLIB proxy carrying the library's advice, and a few calls are counted by the library
 * itself (Weir's {@code totalPassed}, Sentinel's cluster node pass count, Resilience4j's available
 * permissions; the no-op aspect by a probe method on the same bean that finds the aspect on its
 * stack). A refusal during the measurement is counted in the secondary result {@code refused}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
@Threads(1)
public class AnnotationBenchmark {

  static final String WEIR_RESOURCE = "annotation-weir";
  static final String SENTINEL_RESOURCE = "annotation-sentinel";
  static final String RESILIENCE4J_LIMITER = "annotation-resilience4j";
  /** 2e9 per second: never reached (and below {@code Integer.MAX_VALUE} for Resilience4j). */
  static final int NEVER_REFUSING_RATE = 2_000_000_000;
  /** Calls made by each {@code @Setup} to check that the library counts them. */
  static final int CHECK_CALLS = 5;

  // ---------------------------------------------------------------------------------------------
  // The guarded beans: one class per variant, the same method body.

  /** No annotation, no proxy. */
  public static class PlainService {
    public String hello(String name) {
      return name;
    }
  }

  /** Marks the methods of the no-op aspect. */
  @Retention(RetentionPolicy.RUNTIME)
  @Target(ElementType.METHOD)
  public @interface Noop {
  }

  /** An {@code @Around} advice that only proceeds. */
  @Aspect
  public static class NoopAspect {
    @Around("@annotation(dev.weir.benchmarks.AnnotationBenchmark.Noop)")
    public Object around(ProceedingJoinPoint pjp) throws Throwable {
      return pjp.proceed();
    }
  }

  public static class NoopService {
    @Noop
    public String hello(String name) {
      return name;
    }

    /** Called by the setup only: whether the call went through {@link NoopAspect}. */
    @Noop
    public boolean probe() {
      return StackWalker.getInstance()
          .walk(frames -> frames.anyMatch(f -> f.getClassName().equals(NoopAspect.class.getName())));
    }
  }

  public static class WeirService {
    @RateLimited(WEIR_RESOURCE)
    public String hello(String name) {
      return name;
    }
  }

  public static class SentinelService {
    @SentinelResource(SENTINEL_RESOURCE)
    public String hello(String name) {
      return name;
    }
  }

  public static class Resilience4jService {
    @io.github.resilience4j.ratelimiter.annotation.RateLimiter(name = RESILIENCE4J_LIMITER)
    public String hello(String name) {
      return name;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // The applications: one per variant.

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  public static class PlainApp {
    @Bean
    PlainService service() {
      return new PlainService();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  public static class NoopApp {
    @Bean
    NoopAspect noopAspect() {
      return new NoopAspect();
    }

    @Bean
    NoopService service() {
      return new NoopService();
    }
  }

  /** Weir's auto-configuration (found through {@code AutoConfiguration.imports}) does the rest. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  public static class WeirApp {
    @Bean
    WeirService service() {
      return new WeirService();
    }
  }

  /** Sentinel's aspect as its documentation declares it; the rule comes from {@code FlowRuleManager}. */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  public static class SentinelApp {
    @Bean
    SentinelResourceAspect sentinelResourceAspect() {
      return new SentinelResourceAspect();
    }

    @Bean
    SentinelService service() {
      return new SentinelService();
    }
  }

  /**
   * What {@code resilience4j-spring-boot3} would import for a rate limiter, without Boot's
   * auto-configuration of it: the spring6 module's {@link RateLimiterConfiguration} (registry and
   * {@link RateLimiterAspect}), the fallback executor and the SpEL resolver the aspect needs, and the
   * properties (Boot would bind them from {@code resilience4j.ratelimiter.instances.*}).
   */
  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import({RateLimiterConfiguration.class, FallbackConfiguration.class, SpelResolverConfiguration.class})
  public static class Resilience4jApp {
    @Bean
    RateLimiterConfigurationProperties rateLimiterConfigurationProperties() {
      RateLimiterConfigurationProperties properties = new RateLimiterConfigurationProperties();
      properties.getInstances().put(RESILIENCE4J_LIMITER, new InstanceProperties()
          .setLimitForPeriod(NEVER_REFUSING_RATE)
          .setLimitRefreshPeriod(Duration.ofSeconds(1))
          .setTimeoutDuration(Duration.ZERO));
      return properties;
    }

    @Bean
    Resilience4jService service() {
      return new Resilience4jService();
    }
  }

  static ConfigurableApplicationContext start(Class<?> app, String... properties) {
    List<String> all = new ArrayList<>(List.of(
        "spring.aop.proxy-target-class=true",
        "logging.level.root=WARN"));
    all.addAll(Arrays.asList(properties));
    return new SpringApplicationBuilder(app)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .logStartupInfo(false)
        .registerShutdownHook(false)
        .properties(all.toArray(String[]::new))
        .run();
  }

  /**
   * Fails unless {@code bean} is a CGLIB proxy with an advisor of {@code type}, or an advice of that
   * type, or an AspectJ advice declared by that aspect class.
   */
  static void checkProxied(Object bean, Class<?> type) {
    if (!AopUtils.isCglibProxy(bean)) {
      throw new IllegalStateException(bean.getClass() + " is not a CGLIB proxy");
    }
    for (Advisor advisor : ((Advised) bean).getAdvisors()) {
      if (type.isInstance(advisor) || type.isInstance(advisor.getAdvice())) {
        return;
      }
      if (advisor.getAdvice() instanceof AbstractAspectJAdvice aspectJ
          && type.isAssignableFrom(aspectJ.getAspectJAdviceMethod().getDeclaringClass())) {
        return;
      }
    }
    throw new IllegalStateException(bean.getClass() + " has no advice of " + type.getName() + ": "
        + Arrays.toString(((Advised) bean).getAdvisors()));
  }

  /** Fails unless {@code CHECK_CALLS} calls of {@code call} move {@code counter} by {@code CHECK_CALLS}. */
  static void checkCounted(String what, Runnable call, LongSupplier counter, long sign) {
    long before = counter.getAsLong();
    for (int i = 0; i < CHECK_CALLS; i++) {
      call.run();
    }
    long moved = (counter.getAsLong() - before) * sign;
    if (moved != CHECK_CALLS) {
      throw new IllegalStateException(what + ": " + CHECK_CALLS + " calls moved its counter by " + moved
          + ": the calls are not guarded");
    }
  }

  static void checkEcho(String result) {
    if (!"x".equals(result)) {
      throw new IllegalStateException("hello(\"x\") returned " + result);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // States: one per variant, each with its own application context.

  @State(Scope.Benchmark)
  public static class PlainState {
    ConfigurableApplicationContext context;
    PlainService service;
    String arg = "x";

    @Setup(Level.Trial)
    public void setUp() {
      context = start(PlainApp.class, "weir.enabled=false");
      service = context.getBean(PlainService.class);
      if (AopUtils.isAopProxy(service)) {
        throw new IllegalStateException("the plain bean is proxied");
      }
      checkEcho(service.hello(arg));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      context.close();
    }
  }

  @State(Scope.Benchmark)
  public static class NoopState {
    ConfigurableApplicationContext context;
    NoopService service;
    String arg = "x";

    @Setup(Level.Trial)
    public void setUp() {
      context = start(NoopApp.class, "weir.enabled=false");
      service = context.getBean(NoopService.class);
      checkProxied(service, NoopAspect.class);
      if (!service.probe()) {
        throw new IllegalStateException("a @Noop method of the bean did not go through NoopAspect");
      }
      checkEcho(service.hello(arg));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      context.close();
    }
  }

  @State(Scope.Benchmark)
  public static class WeirState {
    ConfigurableApplicationContext context;
    WeirService service;
    String arg = "x";

    @Setup(Level.Trial)
    public void setUp() {
      context = start(WeirApp.class,
          "weir.flow[0].resource=" + WEIR_RESOURCE,
          "weir.flow[0].count=" + NEVER_REFUSING_RATE);
      service = context.getBean(WeirService.class);
      checkProxied(service, RateLimitedAdvisor.class);
      Weir weir = context.getBean(Weir.class);
      if (weir.rules().rules(WEIR_RESOURCE).flow().size() != 1) {
        throw new IllegalStateException("no flow rule on " + WEIR_RESOURCE + ": " + weir.rules().rulesByResource());
      }
      checkEcho(service.hello(arg));
      checkCounted("Weir's totalPassed of " + WEIR_RESOURCE, () -> checkEcho(service.hello(arg)), () -> {
        ResourceStatistics statistics = weir.statistics(WEIR_RESOURCE);
        return statistics == null ? 0 : statistics.totalPassed();
      }, 1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      context.close();
    }
  }

  @State(Scope.Benchmark)
  public static class SentinelState {
    ConfigurableApplicationContext context;
    SentinelService service;
    String arg = "x";

    @Setup(Level.Trial)
    public void setUp() {
      CoreEntryBenchmark.keepSentinelLogsInTemp();
      FlowRule rule = new FlowRule(SENTINEL_RESOURCE);
      rule.setGrade(RuleConstant.FLOW_GRADE_QPS);
      rule.setCount(NEVER_REFUSING_RATE);
      FlowRuleManager.loadRules(List.of(rule));
      if (!FlowRuleManager.hasConfig(SENTINEL_RESOURCE)) {
        throw new IllegalStateException("Sentinel has no rule on " + SENTINEL_RESOURCE);
      }
      context = start(SentinelApp.class, "weir.enabled=false");
      service = context.getBean(SentinelService.class);
      checkProxied(service, SentinelResourceAspect.class);
      checkEcho(service.hello(arg)); // creates the cluster node
      checkCounted("Sentinel's cluster node pass count of " + SENTINEL_RESOURCE,
          () -> checkEcho(service.hello(arg)), () -> {
            ClusterNode node = ClusterBuilderSlot.getClusterNode(SENTINEL_RESOURCE);
            return node == null ? 0 : node.totalPass();
          }, 1);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      context.close();
      FlowRuleManager.loadRules(List.of());
    }
  }

  @State(Scope.Benchmark)
  public static class Resilience4jState {
    ConfigurableApplicationContext context;
    Resilience4jService service;
    String arg = "x";

    @Setup(Level.Trial)
    public void setUp() {
      context = start(Resilience4jApp.class, "weir.enabled=false");
      service = context.getBean(Resilience4jService.class);
      checkProxied(service, RateLimiterAspect.class);
      io.github.resilience4j.ratelimiter.RateLimiter limiter =
          context.getBean(RateLimiterRegistry.class).rateLimiter(RESILIENCE4J_LIMITER);
      if (limiter.getRateLimiterConfig().getLimitForPeriod() != NEVER_REFUSING_RATE) {
        throw new IllegalStateException("Resilience4j limiter not configured: " + limiter.getRateLimiterConfig());
      }
      checkEcho(service.hello(arg));
      // Permissions come back each 1 s cycle: retry if a cycle started during the check.
      for (int attempt = 1; ; attempt++) {
        try {
          checkCounted("Resilience4j's available permissions of " + RESILIENCE4J_LIMITER,
              () -> checkEcho(service.hello(arg)), () -> limiter.getMetrics().getAvailablePermissions(), -1);
          break;
        } catch (IllegalStateException e) {
          if (attempt == 3) {
            throw e;
          }
        }
      }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      context.close();
    }
  }

  /**
   * Refusals (or any other exception) in these never-refusing calls; reported as the secondary
   * result {@code refused}. Touched only on that path.
   */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.EVENTS)
  public static class Refusals {
    public long refused;

    @Setup(Level.Iteration)
    public void reset() {
      refused = 0;
    }
  }

  // ---------------------------------------------------------------------------------------------

  @Benchmark
  public String annotation_plain(PlainState s, Refusals r) {
    try {
      return s.service.hello(s.arg);
    } catch (RuntimeException e) {
      r.refused++;
      return null;
    }
  }

  @Benchmark
  public String annotation_noopAspect(NoopState s, Refusals r) {
    try {
      return s.service.hello(s.arg);
    } catch (RuntimeException e) {
      r.refused++;
      return null;
    }
  }

  @Benchmark
  public String annotation_weir(WeirState s, Refusals r) {
    try {
      return s.service.hello(s.arg);
    } catch (RuntimeException e) {
      r.refused++;
      return null;
    }
  }

  /** A refusal comes out of the CGLIB proxy as an {@code UndeclaredThrowableException} (checked BlockException). */
  @Benchmark
  public String annotation_sentinel(SentinelState s, Refusals r) {
    try {
      return s.service.hello(s.arg);
    } catch (RuntimeException e) {
      r.refused++;
      return null;
    }
  }

  @Benchmark
  public String annotation_resilience4j(Resilience4jState s, Refusals r) {
    try {
      return s.service.hello(s.arg);
    } catch (RuntimeException e) {
      r.refused++;
      return null;
    }
  }
}
