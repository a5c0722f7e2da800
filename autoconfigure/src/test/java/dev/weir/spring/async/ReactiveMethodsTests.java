package dev.weir.spring.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.AuthorityException;
import dev.weir.FlowException;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.spring.test.ManualTicker;
import dev.weir.spring.reactive.ReactiveContext;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** {@code @RateLimited} methods returning {@code Mono}, {@code Flux} or {@code Publisher}: guarded per subscription. */
@SpringBootTest(classes = AsyncTestApplication.class, properties = "spring.config.name=async-test")
@Timeout(60)
class ReactiveMethodsTests {

  @Autowired
  Weir weir;

  @Autowired
  ReactiveService service;

  @Autowired
  ManualTicker ticker;

  @BeforeEach
  void freshStatistics() {
    weir.reset();
  }

  private ResourceStatistics stats(String resource) {
    ResourceStatistics stats = weir.statistics(resource);
    assertThat(stats).as("statistics of %s", resource).isNotNull();
    return stats;
  }

  @Test
  void aMonoAssembledButNeverSubscribedTakesNothingAndEachSubscriptionIsACall() {
    int before = service.assembled();
    Mono<String> mono = service.mono(() -> Mono.just("value"));
    assertThat(service.assembled()).as("the method ran when called").isEqualTo(before + 1);
    assertThat(stats("mono.threads").totalPassed()).isZero();
    assertThat(mono.block(Duration.ofSeconds(5))).isEqualTo("value");
    assertThat(mono.block(Duration.ofSeconds(5))).isEqualTo("value");
    assertThat(service.assembled()).as("and only then").isEqualTo(before + 1);
    assertThat(stats("mono.threads").totalPassed()).isEqualTo(2);
    assertThat(stats("mono.threads").totalSucceeded()).isEqualTo(2);
    assertThat(stats("mono.threads").activeCalls()).isZero();
  }

  @Test
  void theEntryIsHeldUntilTheMonoCompletesAndItsTimeIsCounted() {
    Disposable first = service.mono(Mono::never).subscribe();
    Disposable second = service.mono(Mono::never).subscribe();
    assertThat(stats("mono.threads").activeCalls()).isEqualTo(2);
    AtomicReference<Throwable> refused = new AtomicReference<>();
    service.mono(Mono::never).subscribe(value -> { }, refused::set);
    assertThat(refused.get()).isInstanceOf(FlowException.class);
    first.dispose();
    second.dispose();
    assertThat(stats("mono.threads").activeCalls()).as("disposing releases").isZero();
    // the source's value comes 60 ms (of the driven clock) after the subscription, on a timer thread
    String value = service.mono(() -> Mono.delay(Duration.ofMillis(5)).map(tick -> {
      ticker.advance(Duration.ofMillis(60));
      return "late";
    })).block(Duration.ofSeconds(5));
    assertThat(value).isEqualTo("late");
    assertThat(stats("mono.threads").totalResponseTimeNanos()).isEqualTo(Duration.ofMillis(60).toNanos());
  }

  @Test
  void aRefusalWithoutHandlerIsAnErrorSignalNeverThrownFromTheMethod() {
    Mono<String> mono = service.refused(); // does not throw
    assertThatThrownBy(() -> mono.block(Duration.ofSeconds(5))).isInstanceOf(FlowException.class);
    assertThat(stats("mono.refused").totalBlocked()).isEqualTo(1);
    assertThat(stats("mono.refused").totalPassed()).isZero();
  }

  @Test
  void anErrorGoesToTheFallbackAndIsCountedAsAFailure() {
    String answer = service.handled(() -> Mono.error(new IllegalStateException("broken")))
        .block(Duration.ofSeconds(5));
    assertThat(answer).isEqualTo("fallback:broken");
    assertThat(stats("mono.handled").totalFailed()).isEqualTo(1);
    assertThat(stats("mono.handled").activeCalls()).isZero();
  }

  @Test
  void anIgnoredErrorGoesOnUntouchedAndUncounted() {
    IllegalArgumentException ignored = new IllegalArgumentException("ignored");
    assertThatThrownBy(() -> service.handled(() -> Mono.error(ignored)).block(Duration.ofSeconds(5)))
        .isSameAs(ignored);
    assertThat(stats("mono.handled").totalFailed()).isZero();
    assertThat(stats("mono.handled").totalSucceeded()).isEqualTo(1);
  }

  @Test
  void aBlockHandlerAnswersARefusalWithAPublisher() {
    Mono<String> answer = service.handled(() -> Mono.just("unused"))
        .contextWrite(context -> context.put(ReactiveContext.class, new ReactiveContext("test", "blocked")));
    assertThat(answer.block(Duration.ofSeconds(5))).isEqualTo("busy:FLOW");
    assertThat(stats("mono.handled").totalBlocked()).isEqualTo(1);
  }

  @Test
  void theReactorContextCarriesTheOriginAcrossThreads() {
    Mono<String> mono = service.partners().subscribeOn(Schedulers.parallel());
    assertThat(mono.contextWrite(context -> context.put(ReactiveContext.class, new ReactiveContext("c", "partner")))
        .block(Duration.ofSeconds(5))).isEqualTo("admitted");
    assertThatThrownBy(() -> mono
        .contextWrite(context -> context.put(ReactiveContext.class, new ReactiveContext("c", "stranger")))
        .block(Duration.ofSeconds(5))).isInstanceOf(AuthorityException.class);
  }

  @Test
  void withoutAReactorContextTheSubscribingThreadsContextApplies() throws Exception {
    AtomicReference<Object> outcome = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    weir.runInContext("c", "partner", () -> service.partners().subscribe(value -> {
      outcome.set(value);
      done.countDown();
    }, error -> {
      outcome.set(error);
      done.countDown();
    }));
    assertThat(done.await(5, TimeUnit.SECONDS)).isTrue();
    assertThat(outcome.get()).isEqualTo("admitted");
    AtomicReference<Throwable> refusal = new AtomicReference<>();
    weir.runInContext("c", "stranger", () -> service.partners().subscribe(value -> { }, refusal::set));
    assertThat(refusal.get()).isInstanceOf(AuthorityException.class);
  }

  @Test
  void aFluxIsReleasedWhenCancelledDownstream() {
    List<Long> firstThree = service.flux(() -> Flux.interval(Duration.ofMillis(5))).take(3)
        .collectList().block(Duration.ofSeconds(5));
    assertThat(firstThree).containsExactly(0L, 1L, 2L);
    assertThat(stats("flux.threads").activeCalls()).isZero();
    assertThat(stats("flux.threads").totalSucceeded()).isEqualTo(1);
  }

  @Test
  void aPublisherMethodIsGuardedPerSubscriptionToo() {
    List<Long> values = Flux.from(service.publisher(() -> Flux.just(1L, 2L))).collectList()
        .block(Duration.ofSeconds(5));
    assertThat(values).containsExactly(1L, 2L);
    assertThat(stats("flux.publisher").totalSucceeded()).isEqualTo(1);
  }

  @Test
  void aFluxErrorGoesToAFallbackPublisherAndARefusalToAPlainValue() {
    List<String> fallback = service.handledFlux(() -> Flux.concat(Flux.just("a"),
        Flux.error(new IllegalStateException("broken")))).collectList().block(Duration.ofSeconds(5));
    assertThat(fallback).containsExactly("a", "fallback", "broken");
    assertThat(stats("flux.handled").totalFailed()).isEqualTo(1);
    List<String> busy = service.handledFlux(() -> Flux.just("unused"))
        .contextWrite(context -> context.put(ReactiveContext.class, new ReactiveContext("test", "blocked")))
        .collectList().block(Duration.ofSeconds(5));
    assertThat(busy).containsExactly("busy");
  }

  /**
   * Real threads: subscriptions from several threads to Monos and Fluxes that finish after a random
   * delay on other threads, fail now and then, or are cancelled. With a limit of 2 subscriptions in
   * flight, never more than 2 of the guarded sources run at once, every subscription is passed or
   * blocked, every passed one succeeded or failed, and none is active after.
   */
  @Test
  void conservationAndTheThreadsLimitUnderConcurrency() throws Exception {
    for (String kind : List.of("mono", "flux")) {
      AtomicInteger running = new AtomicInteger();
      AtomicInteger maxRunning = new AtomicInteger();
      AtomicLong attempts = new AtomicLong();
      ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
      int perThread = 150;
      Thread[] threads = new Thread[4];
      for (int t = 0; t < threads.length; t++) {
        threads[t] = new Thread(() -> {
          for (int i = 0; i < perThread; i++) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            int delay = random.nextInt(3);
            boolean fail = random.nextInt(10) == 0;
            boolean cancel = random.nextInt(10) == 0;
            Mono<String> work = Mono.delay(Duration.ofMillis(delay))
                .flatMap(tick -> fail ? Mono.<String>error(new IllegalStateException("fail")) : Mono.just("ok"));
            // counted from the source's subscription to its signal, before the signal reaches the guard
            AtomicBoolean ended = new AtomicBoolean();
            Runnable end = () -> {
              if (ended.compareAndSet(false, true)) {
                running.decrementAndGet();
              }
            };
            Mono<String> tracked = Mono.defer(() -> {
              maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
              return work;
            }).doOnSuccess(value -> end.run()).doOnError(error -> end.run()).doOnCancel(end);
            attempts.incrementAndGet();
            try {
              if (kind.equals("mono")) {
                Mono<String> guarded = service.mono(() -> tracked);
                if (cancel) {
                  guarded.subscribe().dispose();
                } else {
                  guarded.onErrorResume(e -> e instanceof FlowException || e instanceof IllegalStateException,
                      e -> Mono.empty()).block(Duration.ofSeconds(5));
                }
              } else {
                Flux<Long> guarded = service.flux(() -> tracked.thenMany(Flux.just(1L, 2L)));
                if (cancel) {
                  guarded.subscribe().dispose();
                } else {
                  guarded.onErrorResume(e -> e instanceof FlowException || e instanceof IllegalStateException,
                      e -> Flux.empty()).blockLast(Duration.ofSeconds(5));
                }
              }
            } catch (Throwable e) {
              unexpected.add(e);
            }
          }
        });
        threads[t].start();
      }
      for (Thread thread : threads) {
        thread.join(TimeUnit.SECONDS.toMillis(40));
      }
      assertThat(unexpected).isEmpty();
      ResourceStatistics stats = stats(kind + ".threads");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (stats.activeCalls() != 0 && System.nanoTime() < deadline) {
        Thread.sleep(10); // cancelled sources finish their cancellation on timer threads
      }
      assertThat(maxRunning.get()).as("%s sources running at once", kind).isBetween(1, 2);
      assertThat(stats.totalPassed() + stats.totalBlocked()).as(kind).isEqualTo(attempts.get());
      assertThat(stats.totalSucceeded() + stats.totalFailed()).as(kind).isEqualTo(stats.totalPassed());
      assertThat(stats.totalFailed()).as(kind).isPositive();
      assertThat(stats.totalBlocked()).as(kind).isPositive();
      assertThat(stats.activeCalls()).as(kind).isZero();
    }
  }
}
