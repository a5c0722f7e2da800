package dev.weir.spring.async;

import dev.weir.annotation.RateLimited;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Asynchronous methods behind circuit breakers (rules in {@code async-test.yml}); each returns what
 * its argument supplies, so a test shapes the work and its outcome.
 */
class BreakerService {

  @RateLimited("breaker.stage")
  public CompletableFuture<String> stage(Supplier<CompletableFuture<String>> work) {
    return work.get();
  }

  @RateLimited(value = "breaker.stage.fallback", fallback = "throwingFallback")
  public CompletableFuture<String> stageWithThrowingFallback(Supplier<CompletableFuture<String>> work) {
    return work.get();
  }

  String throwingFallback(Supplier<CompletableFuture<String>> work, Throwable failure) {
    throw new IllegalStateException("the fallback failed too, after " + failure.getMessage());
  }

  @RateLimited("breaker.slow.stage")
  public CompletableFuture<String> slowStage(Supplier<CompletableFuture<String>> work) {
    return work.get();
  }

  @RateLimited("breaker.mono")
  public Mono<String> mono(Supplier<Mono<String>> work) {
    return work.get();
  }

  @RateLimited(value = "breaker.mono.fallback", fallback = "throwingMonoFallback")
  public Mono<String> monoWithThrowingFallback(Supplier<Mono<String>> work) {
    return work.get();
  }

  Mono<String> throwingMonoFallback(Supplier<Mono<String>> work, Throwable failure) {
    throw new IllegalStateException("the fallback failed too, after " + failure.getMessage());
  }

  @RateLimited("breaker.slow.mono")
  public Mono<String> slowMono(Supplier<Mono<String>> work) {
    return work.get();
  }

  @RateLimited("breaker.flux")
  public Flux<Long> flux(Supplier<Flux<Long>> work) {
    return work.get();
  }

  /** Its work calls another guarded method, which may refuse: a nested refusal. */
  @RateLimited("breaker.nested.stage")
  public CompletableFuture<String> nestedStage(Supplier<CompletableFuture<String>> work) {
    return work.get();
  }

  @RateLimited("breaker.nested.mono")
  public Mono<String> nestedMono(Supplier<Mono<String>> work) {
    return work.get();
  }
}
