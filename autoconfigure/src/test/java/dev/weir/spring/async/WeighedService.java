package dev.weir.spring.async;

import dev.weir.annotation.RateLimited;
import reactor.core.publisher.Mono;

/** Calls that weigh several permits, against one rule of 10 an hour. */
class WeighedService {

  @RateLimited(value = "permits.qps", permits = 4)
  public String four() {
    return "four";
  }

  @RateLimited(value = "permits.qps", permits = 2)
  public Mono<String> twoPerSubscription() {
    return Mono.just("two");
  }
}
