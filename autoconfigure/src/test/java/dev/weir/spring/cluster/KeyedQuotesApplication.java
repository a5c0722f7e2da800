package dev.weir.spring.cluster;

import dev.weir.annotation.RateLimited;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** One instance of an application whose {@code keyed} resource has a per-key cluster-mode rule. */
@SpringBootConfiguration
@EnableAutoConfiguration
class KeyedQuotesApplication {

  @Bean
  Quotes quotes() {
    return new Quotes();
  }

  static class Quotes {
    @RateLimited("keyed")
    public String quote(String apiKey) {
      return "quote for " + apiKey;
    }
  }
}
