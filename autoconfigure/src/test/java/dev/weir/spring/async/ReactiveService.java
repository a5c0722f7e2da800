package dev.weir.spring.async;

import dev.weir.BlockException;
import dev.weir.annotation.RateLimited;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Reactive methods; each returns the publisher its argument supplies, so a test shapes the work. */
class ReactiveService {

  private final AtomicInteger assembled = new AtomicInteger();

  /** How often {@link #mono} itself ran (assembled its Mono), apart from subscriptions. */
  public int assembled() {
    return assembled.get();
  }

  @RateLimited("mono.threads")
  public Mono<String> mono(Supplier<Mono<String>> work) {
    assembled.incrementAndGet();
    return work.get();
  }

  @RateLimited("flux.threads")
  public Flux<Long> flux(Supplier<Flux<Long>> work) {
    return work.get();
  }

  @RateLimited("flux.publisher")
  public Publisher<Long> publisher(Supplier<Publisher<Long>> work) {
    return work.get();
  }

  @RateLimited("mono.refused")
  public Mono<String> refused() {
    return Mono.just("admitted");
  }

  @RateLimited("mono.partners")
  public Mono<String> partners() {
    return Mono.just("admitted");
  }

  @RateLimited(value = "mono.handled", blockHandler = "busy", fallback = "fallback",
      exceptionsToIgnore = IllegalArgumentException.class)
  public Mono<String> handled(Supplier<Mono<String>> work) {
    return work.get();
  }

  Mono<String> busy(Supplier<Mono<String>> work, BlockException refusal) {
    return Mono.just("busy:" + refusal.ruleKind());
  }

  String fallback(Supplier<Mono<String>> work, IllegalStateException failure) {
    return "fallback:" + failure.getMessage();
  }

  @RateLimited(value = "flux.handled", blockHandler = "fluxBusy", fallback = "fluxFallback")
  public Flux<String> handledFlux(Supplier<Flux<String>> work) {
    return work.get();
  }

  String fluxBusy(Supplier<Flux<String>> work, BlockException refusal) {
    return "busy";
  }

  Flux<String> fluxFallback(Supplier<Flux<String>> work, Throwable failure) {
    return Flux.just("fallback", failure.getMessage());
  }

  @RateLimited(value = "flux.switch", fallback = "switchFallback")
  public Flux<Long> switching(Supplier<Flux<Long>> work) {
    return work.get();
  }

  Flux<Long> switchFallback(Supplier<Flux<Long>> work, Throwable failure) {
    return Flux.just(100L, 101L, 102L, 103L, 104L);
  }

  @RateLimited(value = "mono.throwing.handler", fallback = "throwingFallback")
  public Mono<String> throwingHandler(Supplier<Mono<String>> work) {
    return work.get();
  }

  Mono<String> throwingFallback(Supplier<Mono<String>> work, Throwable failure) {
    throw new IllegalArgumentException("the handler failed on " + failure.getMessage());
  }
}
