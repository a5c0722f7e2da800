package dev.weir.spring.cluster;

import dev.weir.annotation.RateLimited;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/** An application whose {@code faults} resource has a cluster-mode rule; the fault tests break its Redis. */
@SpringBootConfiguration
@EnableAutoConfiguration
class ClusterFaultApplication {

  static final String RESOURCE = "faults";

  @Bean
  Guarded guarded() {
    return new Guarded();
  }

  static class Guarded {
    @RateLimited(RESOURCE)
    public String call() {
      return "ok";
    }
  }
}
