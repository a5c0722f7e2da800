package dev.weir.benchmarks.retry;

import dev.weir.Ticker;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.retry.WeirRetryBudgetAutoConfiguration;
import dev.weir.spring.retry.RetryBudgets;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;

/**
 * The load a dependency that fails every call for 30 s sees from its callers, with and without
 * Weir's retry budget: callers make 100 calls a second (one every 10 ms of a driven clock, so the
 * run is deterministic and takes well under a second), each retried up to 3 times without delay
 * (a back-off delay moves retries in time but does not change how many are made). Measured for a
 * {@code RetryTemplate} under {@link RetryBudgets} and for a real {@code @Retryable} bean in a
 * Spring context with Weir's auto-configuration; the budget is the default of
 * {@code weir.retry-budget}: ratio 0.1, window 10 s, 1 retry per second.
 *
 * <p>Run: {@code java -cp benchmarks/target-bench/weir-benchmarks.jar dev.weir.benchmarks.retry.RetryBudgetLoad
 * [--out FILE]}; it prints a Markdown table (and writes it to FILE).
 */
public final class RetryBudgetLoad {

  static final Duration OUTAGE = Duration.ofSeconds(30);
  static final Duration BETWEEN_CALLS = Duration.ofMillis(10);
  static final int MAX_RETRIES = 3;
  static final double RATIO = 0.1;
  static final Duration WINDOW = Duration.ofSeconds(10);
  static final double MIN_PER_SECOND = 1;

  private RetryBudgetLoad() {
  }

  public static void main(String[] args) throws IOException {
    Path out = null;
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals("--out")) {
        out = Path.of(args[i + 1]);
      }
    }
    StringBuilder table = new StringBuilder();
    table.append("| caller | calls | attempts without budget | attempts with budget | load without | load with |\n");
    table.append("| --- | ---: | ---: | ---: | ---: | ---: |\n");
    row(table, "`RetryTemplate` (maxRetries 3)", template(false), template(true));
    row(table, "`@Retryable(maxRetries = 3)`", annotated(false), annotated(true));
    String text = "A dependency failing 100 % for " + OUTAGE.toSeconds() + " s, " + (1000 / BETWEEN_CALLS.toMillis())
        + " calls/s, budget ratio " + RATIO + ", window " + WINDOW.toSeconds() + " s, min-per-second "
        + (int) MIN_PER_SECOND + " (driven clock, deterministic). Load = attempts / calls.\n\n" + table;
    System.out.print(text);
    if (out != null) {
      Files.createDirectories(out.toAbsolutePath().getParent());
      Files.writeString(out, text);
    }
  }

  private static void row(StringBuilder table, String caller, long[] without, long[] with) {
    table.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %,d | %.2f× | %.2f× |%n", caller, without[0], without[1],
        with[1], without[1] / (double) without[0], with[1] / (double) with[0]));
  }

  /** Returns {calls, attempts} of a RetryTemplate calling the failing dependency. */
  static long[] template(boolean budgeted) {
    DrivenTicker ticker = new DrivenTicker();
    RetryBudgets budgets = budgeted ? RetryBudgets.of(ticker, RATIO, WINDOW, MIN_PER_SECOND) : RetryBudgets.none();
    RetryTemplate template = budgets.apply("dependency",
        new RetryTemplate(RetryPolicy.builder().maxRetries(MAX_RETRIES).delay(Duration.ZERO).build()));
    FailingDependency dependency = new FailingDependency();
    long calls = 0;
    for (long at = 0; at < OUTAGE.toNanos(); at += BETWEEN_CALLS.toNanos()) {
      ticker.set(at);
      calls++;
      try {
        template.invoke(dependency::call);
      } catch (IllegalStateException expected) {
        // the outage
      }
    }
    return new long[] {calls, dependency.attempts.get()};
  }

  /** Returns {calls, attempts} of a @Retryable bean calling the failing dependency. */
  static long[] annotated(boolean budgeted) {
    SpringApplication application = new SpringApplication(Callers.class);
    application.setWebApplicationType(WebApplicationType.NONE);
    application.setLogStartupInfo(false);
    application.setBannerMode(org.springframework.boot.Banner.Mode.OFF);
    application.setDefaultProperties(java.util.Map.of(
        "weir.retry-budget.enabled", Boolean.toString(budgeted),
        "weir.retry-budget.ratio", Double.toString(RATIO),
        "weir.retry-budget.window", WINDOW.toSeconds() + "s",
        "weir.retry-budget.min-per-second", Double.toString(MIN_PER_SECOND),
        "logging.level.root", "warn"));
    try (ConfigurableApplicationContext context = application.run()) {
      DrivenTicker ticker = context.getBean(DrivenTicker.class);
      Caller caller = context.getBean(Caller.class);
      FailingDependency dependency = context.getBean(FailingDependency.class);
      long calls = 0;
      for (long at = 0; at < OUTAGE.toNanos(); at += BETWEEN_CALLS.toNanos()) {
        ticker.set(at);
        calls++;
        try {
          caller.call();
        } catch (IllegalStateException expected) {
          // the outage
        }
      }
      return new long[] {calls, dependency.attempts.get()};
    }
  }

  /** The Spring context of the @Retryable row: Weir's auto-configuration, a driven ticker, the caller. */
  @Configuration(proxyBeanMethods = false)
  @EnableResilientMethods
  @ImportAutoConfiguration({AopAutoConfiguration.class, WeirAutoConfiguration.class, WeirRetryBudgetAutoConfiguration.class})
  static class Callers {

    @Bean
    DrivenTicker ticker() {
      return new DrivenTicker();
    }

    @Bean
    FailingDependency dependency() {
      return new FailingDependency();
    }

    @Bean
    Caller caller(FailingDependency dependency) {
      return new Caller(dependency);
    }
  }

  /** Calls the dependency, retried by Spring. */
  public static class Caller {

    private final FailingDependency dependency;

    Caller(FailingDependency dependency) {
      this.dependency = dependency;
    }

    @Retryable(maxRetries = MAX_RETRIES, delay = 0)
    public String call() {
      return dependency.call();
    }
  }

  /** A dependency in an outage: counts every attempt that reaches it and fails it. */
  static final class FailingDependency {

    final AtomicLong attempts = new AtomicLong();

    String call() {
      attempts.incrementAndGet();
      throw new IllegalStateException("down");
    }
  }

  /** A ticker the harness sets. */
  static final class DrivenTicker implements Ticker {

    private final AtomicLong nanos = new AtomicLong();

    @Override
    public long read() {
      return nanos.get();
    }

    void set(long reading) {
      nanos.set(reading);
    }
  }
}
