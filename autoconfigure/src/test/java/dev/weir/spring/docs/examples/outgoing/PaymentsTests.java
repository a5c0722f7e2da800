package dev.weir.spring.docs.examples.outgoing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Import;

/**
 * The outgoing-calls page's {@link Payments} refused by its route's rule: nothing is sent, and the
 * answer gives the wait in whole seconds rounded up, at least 1, as the {@code Retry-After} header
 * does (never "retry in 0 s").
 */
class PaymentsTests {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Payments.class)
  static class PaymentsApp {
  }

  @Test
  void aRefusalSaysWhenToRetryInWholeSecondsRoundedUp() {
    new ApplicationContextRunner().withUserConfiguration(PaymentsApp.class)
        .withPropertyValues("weir.client.routes[0].resource=payments",
            "weir.client.routes[0].url=https://payments.example.com/**",
            "weir.flow[0].resource=payments", "weir.flow[0].count=0")
        .run(context -> assertThat(context.getBean(Payments.class).charge("o-1")).isEqualTo("busy, retry in 1 s"));
  }
}
