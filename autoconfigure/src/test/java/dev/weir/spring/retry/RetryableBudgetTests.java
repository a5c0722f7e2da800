package dev.weir.spring.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.Entry;
import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.annotation.RateLimited;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.retry.WeirRetryBudgetAutoConfiguration;
import dev.weir.spring.test.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.core.retry.RetryException;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.resilience.annotation.EnableResilientMethods;
import org.springframework.resilience.annotation.Retryable;
import org.springframework.resilience.retry.MethodRetryEvent;

/**
 * Retry budgets in a real Spring context: a {@code @Retryable} bean (with
 * {@code @EnableResilientMethods}) and a {@link RetryTemplate} bean, on a driven ticker, calling a
 * dependency that always fails or that Weir refuses.
 */
class RetryableBudgetTests {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, WeirAutoConfiguration.class,
          WeirRetryBudgetAutoConfiguration.class))
      .withUserConfiguration(Partners.class)
      .withPropertyValues("weir.flow[0].resource=Partner.refusedByRule", "weir.flow[0].count=0",
          "weir.flow[1].resource=partner.inner", "weir.flow[1].count=0");

  @Test
  void aRetryOverBudgetIsNotMadeAndTheLastExceptionReachesTheCaller() {
    // floor 0.2/s x 10 s = 2 retries per window, ratio 0
    runner.withPropertyValues("weir.retry-budget.ratio=0", "weir.retry-budget.min-per-second=0.2").run(context -> {
      Partner partner = context.getBean(Partner.class);
      assertThatThrownBy(partner::failing).isInstanceOf(IllegalStateException.class).hasMessage("down #3");
      assertThat(partner.calls()).as("one first attempt and the two retries of the budget").isEqualTo(3);
      assertThatThrownBy(partner::failing).hasMessage("down #4");
      assertThat(partner.calls()).as("no retry left in the window").isEqualTo(4);

      context.getBean(ManualTicker.class).advance(Duration.ofSeconds(10));
      assertThatThrownBy(partner::failing).hasMessage("down #7");
      assertThat(partner.calls()).as("a new window, two retries again").isEqualTo(7);
      assertThat(context.getBean(RetryBudgets.class).resources()).contains("Partner.failing");
    });
  }

  @Test
  void withRoomInTheBudgetSpringRetriesAsItsAnnotationSays() {
    runner.run(context -> {
      Partner partner = context.getBean(Partner.class);
      assertThatThrownBy(partner::failing).hasMessage("down #4");
      assertThat(partner.calls()).as("1 + maxRetries 3, within the default floor of 10").isEqualTo(4);
      assertThat(partner.recovering()).as("calls 5, 6 and 7 fail, the third retry succeeds").isEqualTo("ok after 7");
    });
  }

  @Test
  void firstAttemptsEarnRetries() {
    runner.withPropertyValues("weir.retry-budget.ratio=0.5", "weir.retry-budget.min-per-second=0").run(context -> {
      Partner partner = context.getBean(Partner.class);
      for (int i = 0; i < 4; i++) {
        partner.sometimes(false);
      }
      // 5 first attempts (4 + this call) x 0.5 = 2 retries
      assertThatThrownBy(() -> partner.sometimes(true)).hasMessage("down #3");
      RetryBudget budget = context.getBean(RetryBudgets.class).budget("Partner.sometimes");
      assertThat(budget.firstAttempts()).isEqualTo(5);
      assertThat(budget.retries()).isEqualTo(2);
      assertThat(context.getBean(RetryBudgets.class).budget("Partner.failing").firstAttempts())
          .as("each method has a budget of its own").isZero();
    });
  }

  @Test
  void aWeirRefusalIsNeverRetried() {
    runner.run(context -> {
      Partner partner = context.getBean(Partner.class);
      Weir weir = context.getBean(Weir.class);
      assertThatThrownBy(partner::refusedByRule).isInstanceOf(FlowException.class);
      assertThat(weir.statistics("Partner.refusedByRule").totalBlocked()).as("refused once, not retried").isEqualTo(1);
      assertThatThrownBy(partner::refusedInside).isInstanceOf(FlowException.class);
      assertThat(partner.calls()).as("the method that met the refusal ran once").isEqualTo(1);
    });
  }

  @Test
  void aWeirRefusalIsNeverRetriedWithoutBudgetsEither() {
    runner.withPropertyValues("weir.retry-budget.enabled=false", "weir.retry-budget.min-per-second=0").run(context -> {
      Partner partner = context.getBean(Partner.class);
      assertThatThrownBy(partner::refusedInside).isInstanceOf(FlowException.class);
      assertThat(partner.calls()).isEqualTo(1);
      assertThatThrownBy(partner::failing).hasMessage("down #5");
      assertThat(partner.calls()).as("plain failures: retried as annotated").isEqualTo(5);
      assertThat(context.getBean(RetryBudgets.class).enabled()).isFalse();
    });
  }

  @Test
  void aRetryNotMadePublishesSpringsEvents() {
    runner.withPropertyValues("weir.retry-budget.ratio=0", "weir.retry-budget.min-per-second=0").run(context -> {
      Partner partner = context.getBean(Partner.class);
      assertThatThrownBy(partner::failing).hasMessage("down #1");
      List<MethodRetryEvent> events = context.getBean(Events.class).events;
      assertThat(events).hasSize(2);
      assertThat(events.get(0).isRetryAborted()).isFalse();
      assertThat(events.get(0).getFailure()).hasMessage("down #1");
      assertThat(events.get(1).isRetryAborted()).isTrue();
      assertThat(events.get(1).getFailure()).isInstanceOf(RetryException.class).hasRootCauseMessage("down #1");
    });
  }

  @Test
  void aRetryTemplateBeanIsBudgetedByItsName() {
    runner.withPropertyValues("weir.retry-budget.ratio=0", "weir.retry-budget.min-per-second=0.1").run(context -> {
      RetryTemplate template = context.getBean("partnerRetries", RetryTemplate.class);
      AtomicInteger calls = new AtomicInteger();
      assertThatThrownBy(() -> template.invoke(() -> {
        throw new IllegalStateException("down #" + calls.incrementAndGet());
      })).hasMessage("down #2");
      assertThat(calls.get()).as("one retry: floor 0.1/s x 10 s").isEqualTo(2);
      assertThatThrownBy(() -> template.execute(() -> {
        throw new IllegalStateException("down #" + calls.incrementAndGet());
      })).isInstanceOf(RetryException.class).hasCauseInstanceOf(IllegalStateException.class);
      assertThat(calls.get()).isEqualTo(3);
      RetryBudget budget = context.getBean(RetryBudgets.class).budget("partnerRetries");
      assertThat(budget.firstAttempts()).isEqualTo(2);
      assertThat(budget.retries()).isEqualTo(1);
      assertThat(template.invoke(() -> "fine")).isEqualTo("fine");
      assertThat(budget.firstAttempts()).isEqualTo(3);
    });
  }

  @Test
  void aRetryTemplateNeverRetriesAWeirRefusal() {
    runner.run(context -> {
      RetryTemplate template = context.getBean("partnerRetries", RetryTemplate.class);
      Weir weir = context.getBean(Weir.class);
      AtomicInteger calls = new AtomicInteger();
      assertThatThrownBy(() -> template.invoke(() -> {
        calls.incrementAndGet();
        try (Entry entry = weir.entry("partner.inner")) {
          return "unreachable";
        }
      })).isInstanceOf(FlowException.class);
      assertThat(calls.get()).isEqualTo(1);
    });
  }

  @Test
  void invalidSettingsStopTheStartNamingTheProperty() {
    runner.withPropertyValues("weir.retry-budget.ratio=-1", "weir.retry-budget.window=1ms").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidWeirConfigurationException.class)
          .hasMessageContaining("weir.retry-budget.ratio").hasMessageContaining("weir.retry-budget.window");
    });
  }

  @Configuration(proxyBeanMethods = false)
  @EnableResilientMethods
  static class Partners {

    @Bean
    ManualTicker ticker() {
      return new ManualTicker();
    }

    @Bean
    Partner partner(Weir weir) {
      return new Partner(weir);
    }

    @Bean
    RetryTemplate partnerRetries() {
      return new RetryTemplate(RetryPolicy.builder().maxRetries(3).delay(Duration.ZERO).build());
    }

    @Bean
    Events events() {
      return new Events();
    }
  }

  /** Collects Spring's retry events. */
  static class Events {

    final List<MethodRetryEvent> events = new CopyOnWriteArrayList<>();

    @EventListener
    void on(MethodRetryEvent event) {
      events.add(event);
    }
  }

  /** A dependency: down, refused by a rule, calling something refused, or recovering. */
  static class Partner {

    private final AtomicInteger calls = new AtomicInteger();
    private final Weir weir;

    Partner(Weir weir) {
      this.weir = weir;
    }

    @Retryable(maxRetries = 3, delay = 0)
    public String failing() {
      throw new IllegalStateException("down #" + calls.incrementAndGet());
    }

    @Retryable(maxRetries = 3, delay = 0)
    public String recovering() {
      int call = calls.incrementAndGet();
      if (call % 4 != 0) {
        throw new IllegalStateException("down #" + call);
      }
      return "ok after " + (call - 1);
    }

    @Retryable(maxRetries = 3, delay = 0)
    public String sometimes(boolean fail) {
      if (fail) {
        throw new IllegalStateException("down #" + calls.incrementAndGet());
      }
      return "ok";
    }

    public int calls() {
      return calls.get();
    }

    @Retryable(maxRetries = 3, delay = 0)
    @RateLimited
    public String refusedByRule() {
      calls.incrementAndGet();
      return "unreachable";
    }

    @Retryable(maxRetries = 3, delay = 0)
    public String refusedInside() {
      calls.incrementAndGet();
      try (Entry entry = weir.entry("partner.inner")) {
        return "unreachable";
      }
    }
  }

}
