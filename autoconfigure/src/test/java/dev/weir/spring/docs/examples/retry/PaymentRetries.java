package dev.weir.spring.docs.examples.retry;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.retry.RetryPolicy;
import org.springframework.core.retry.RetryTemplate;

/** The retry-budget page's example: a {@code RetryTemplate} bean, budgeted under its bean name. */
@Configuration(proxyBeanMethods = false)
class PaymentRetries {

  // tag::template[]
  @Bean
  RetryTemplate paymentRetries() {                    // resource "paymentRetries", its bean name
    return new RetryTemplate(RetryPolicy.builder().maxRetries(3).build());
  }
  // end::template[]
}
