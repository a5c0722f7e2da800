package dev.weir.spring.cluster;

import dev.weir.annotation.RateLimited;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * One instance of an application whose per-key cluster rules take their keys from callers: the
 * {@code hostile.keyed} resource is keyed by a string argument, {@code hostile.typed} by an argument
 * of any type (rules come with each test's properties).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class HostileKeysApplication {

  @Bean
  Keyed keyed() {
    return new Keyed();
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
