package dev.weir.spring.async;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FlowException;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.reactivestreams.Subscription;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The guard of a reactive method is one object per subscription, which also answers errors through
 * the handlers: released exactly once when a cancel races the completion on real threads, and the
 * handlers' answer serving exactly the demand the subscriber has left.
 */
@SpringBootTest(classes = AsyncTestApplication.class, properties = "spring.config.name=async-test")
@Timeout(120)
class ReactiveOperatorTests {

  @Autowired
  Weir weir;

  @Autowired
  ReactiveService service;

  @BeforeEach
  void freshStatistics() {
    weir.reset();
  }

  private ResourceStatistics stats(String resource) {
    ResourceStatistics stats = weir.statistics(resource);
    assertThat(stats).as("statistics of %s", resource).isNotNull();
    return stats;
  }

  /** Records what it receives; requests only what a test asks. */
  static final class Recorder<T> implements CoreSubscriber<T> {
    final List<Object> signals = new CopyOnWriteArrayList<>();
    final AtomicReference<Subscription> subscription = new AtomicReference<>();

    @Override
    public void onSubscribe(Subscription s) {
      subscription.set(s);
    }

    @Override
    public void onNext(T value) {
      signals.add(value);
    }

    @Override
    public void onError(Throwable failure) {
      signals.add(failure);
    }

    @Override
    public void onComplete() {
      signals.add("complete");
    }
  }

  @Test
  void aCancelRacingTheCompletionReleasesTheEntryExactlyOnce() throws Exception {
    // mono.threads admits 2 at once: a release missed would refuse later subscriptions, one made
    // twice would admit a third at once; after each race no call is in flight
    int rounds = 2_000;
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      CyclicBarrier start = new CyclicBarrier(2);
      for (int round = 0; round < rounds; round++) {
        CompletableFuture<String> work = new CompletableFuture<>();
        Recorder<String> recorder = new Recorder<>();
        service.mono(() -> Mono.fromFuture(work, true)).subscribe(recorder);
        assertThat(recorder.signals).as("round %d: admitted", round).isEmpty();
        Subscription subscription = recorder.subscription.get();
        subscription.request(1);
        Future<?> completes = threads.submit(() -> {
          start.await();
          return work.complete("done");
        });
        Future<?> cancels = threads.submit(() -> {
          start.await();
          subscription.cancel();
          return null;
        });
        completes.get(10, TimeUnit.SECONDS);
        cancels.get(10, TimeUnit.SECONDS);
        assertThat(stats("mono.threads").activeCalls()).as("calls in flight after round %d (%s)", round,
            recorder.signals).isZero();
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(stats("mono.threads").totalPassed()).isEqualTo(rounds);
    Recorder<String> first = new Recorder<>();
    Recorder<String> second = new Recorder<>();
    Recorder<String> third = new Recorder<>();
    service.mono(Mono::never).subscribe(first);
    service.mono(Mono::never).subscribe(second);
    service.mono(Mono::never).subscribe(third);
    assertThat(first.signals).isEmpty();
    assertThat(second.signals).isEmpty();
    assertThat(third.signals).as("a third at once, over the limit of 2").singleElement()
        .isInstanceOf(FlowException.class);
    first.subscription.get().cancel();
    second.subscription.get().cancel();
    assertThat(stats("mono.threads").activeCalls()).isZero();
  }

  @Test
  void theHandlersAnswerToAnErrorServesTheDemandLeftAndNoMore() {
    Recorder<Long> recorder = new Recorder<>();
    service.switching(() -> Flux.just(1L, 2L).concatWith(Flux.error(new IllegalStateException("broken"))))
        .subscribe(recorder);
    Subscription subscription = recorder.subscription.get();
    subscription.request(2);
    assertThat(recorder.signals).as("the method's values, then its error answered with no demand left")
        .containsExactly(1L, 2L);
    assertThat(stats("flux.switch").activeCalls()).as("closed at the error").isZero();
    assertThat(stats("flux.switch").totalFailed()).isEqualTo(1);
    subscription.request(3);
    assertThat(recorder.signals).containsExactly(1L, 2L, 100L, 101L, 102L);
    subscription.request(10);
    assertThat(recorder.signals).containsExactly(1L, 2L, 100L, 101L, 102L, 103L, 104L, "complete");
  }

  @Test
  void aCancelAfterTheSwitchCancelsTheHandlersAnswer() {
    Recorder<Long> recorder = new Recorder<>();
    service.switching(() -> Flux.error(new IllegalStateException("broken"))).subscribe(recorder);
    Subscription subscription = recorder.subscription.get();
    subscription.request(1);
    assertThat(recorder.signals).containsExactly(100L);
    subscription.cancel();
    subscription.request(10);
    assertThat(recorder.signals).as("nothing after the cancel").containsExactly(100L);
    assertThat(stats("flux.switch").activeCalls()).isZero();
  }

  @Test
  void aHandlerThatThrowsPassesItsExceptionOnAndTheEntryIsReleasedOnce() {
    Recorder<String> recorder = new Recorder<>();
    service.throwingHandler(() -> Mono.error(new IllegalStateException("broken"))).subscribe(recorder);
    recorder.subscription.get().request(1);
    assertThat(recorder.signals).singleElement().isInstanceOfSatisfying(IllegalArgumentException.class,
        failure -> assertThat(failure).hasMessage("the handler failed on broken"));
    recorder.subscription.get().cancel(); // after the end: changes nothing
    assertThat(stats("mono.throwing.handler").activeCalls()).isZero();
    assertThat(stats("mono.throwing.handler").totalFailed()).isEqualTo(1);
    assertThat(stats("mono.throwing.handler").totalSucceeded()).isZero();
  }
}
