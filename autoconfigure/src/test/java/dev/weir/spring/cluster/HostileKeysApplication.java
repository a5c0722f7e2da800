package dev.weir.spring.cluster;

import dev.weir.annotation.RateLimited;
import dev.weir.spring.autoconfigure.WeirBuilderCustomizer;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * One instance of an application whose per-key cluster rules take their keys from callers: the
 * {@code hostile.keyed} resource is keyed by a string argument, {@code hostile.typed} by an argument
 * of any type (rules come with each test's properties). A {@code limit-app: other} rule keeps a
 * limiter for 2 origins of a resource, the others share one overflow limiter.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class HostileKeysApplication {

  @Bean
  Keyed keyed() {
    return new Keyed();
  }

  @Bean
  WeirBuilderCustomizer fewOrigins() {
    return builder -> builder.maxOriginsPerResource(2);
  }

  static class Keyed {
    @RateLimited("hostile.keyed")
    public String quote(@Nullable String apiKey) {
      return "quote for " + apiKey;
    }

    @RateLimited("hostile.typed")
    public String typed(Object key) {
      return "typed " + key;
    }
  }
}
