package dev.weir.spring.cluster;

import dev.weir.annotation.RateLimited;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** One instance of an application whose {@code shared} resource has a cluster-mode rule. */
@SpringBootConfiguration
@EnableAutoConfiguration
class ClusterSharingApplication {

  @Bean
  Quotes quotes() {
    return new Quotes();
  }

  static class Quotes {
    @RateLimited("shared")
    public String quote() {
      return "quote";
    }
  }
}
