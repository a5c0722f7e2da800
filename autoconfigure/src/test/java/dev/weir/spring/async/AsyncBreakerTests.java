package dev.weir.spring.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.BlockException;
import dev.weir.CircuitState;
import dev.weir.DegradeException;
import dev.weir.FlowException;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.spring.test.ManualTicker;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Circuit breakers on {@code CompletionStage}, {@code Mono} and {@code Flux} methods, on a driven
 * ticker: what ends a call (completion, error, cancel, a caller's timeout, an empty {@code Mono}, a
 * {@code Flux} cancelled after or before its first element) and what the breaker makes of it. A
 * probe's caller that gives up says nothing about the resource: the probe is handed back (the next
 * call probes at once), never counted as a success that closes the breaker.
 */
@SpringBootTest(classes = AsyncTestApplication.class, properties = "spring.config.name=async-test")
@Timeout(30)
class AsyncBreakerTests {

  private static final Duration OPEN = Duration.ofSeconds(5);

  @Autowired
  Weir weir;

  @Autowired
  BreakerService service;

  @Autowired
  StageService stages;

  @Autowired
  ReactiveService reactive;

  @Autowired
  ManualTicker ticker;

  @BeforeEach
  void freshState() {
    weir.reset();
  }

  private ResourceStatistics stats(String resource) {
    ResourceStatistics stats = weir.statistics(resource);
    assertThat(stats).as("statistics of %s", resource).isNotNull();
    return stats;
  }

  private CircuitState state(String resource) {
    return stats(resource).circuitState();
  }

  private static <T> CompletableFuture<T> failed() {
    return CompletableFuture.failedFuture(new IllegalStateException("down"));
  }

  /** Two failed stages trip the breaker of {@code breaker.stage}; then its open period passes. */
  private void tripStageAndWait() {
    for (int i = 0; i < 2; i++) {
      assertThat(service.stage(AsyncBreakerTests::failed)).isCompletedExceptionally();
    }
    assertThat(state("breaker.stage")).isEqualTo(CircuitState.OPEN);
    ticker.advance(OPEN);
  }

  /** Trips {@code breaker.mono} with two failures, or {@code breaker.slow.mono} with two slow calls; then waits. */
  private void tripMonoAndWait(String resource) {
    for (int i = 0; i < 2; i++) {
      Mono<String> failing = resource.equals("breaker.mono")
          ? service.mono(() -> Mono.error(new IllegalStateException("down")))
          : service.slowMono(() -> Mono.fromCallable(() -> {
            ticker.advance(Duration.ofMillis(150)); // the value comes 150 ms after the subscription
            return "slow";
          }));
      failing.onErrorReturn("failed").block(Duration.ofSeconds(5));
    }
    assertThat(state(resource)).isEqualTo(CircuitState.OPEN);
    ticker.advance(OPEN);
  }

  /** The next call of a stage method probes at once, and its failure reopens for a whole period. */
  private void nextStageCallProbesAtOnce() {
    CompletableFuture<String> own = new CompletableFuture<>();
    CompletableFuture<String> probe = service.stage(() -> own);
    assertThat(probe).as("the next call is admitted, as the probe").isNotDone();
    assertThat(state("breaker.stage")).isEqualTo(CircuitState.HALF_OPEN);
    own.completeExceptionally(new IllegalStateException("still down"));
    assertThat(state("breaker.stage")).isEqualTo(CircuitState.OPEN);
    assertThatThrownBy(() -> service.stage(() -> CompletableFuture.completedFuture("x")).join())
        .hasCauseInstanceOf(DegradeException.class).cause()
        .extracting(e -> ((BlockException) e).retryAfter()).isEqualTo(OPEN);
  }

  // --- CompletionStage ---

  @Test
  void aStageProbeCancelledByItsCallerIsHandedBackNotCountedAsASuccess() {
    tripStageAndWait();
    CompletableFuture<String> own = new CompletableFuture<>();
    CompletableFuture<String> probe = service.stage(() -> own);
    assertThat(state("breaker.stage")).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(probe.cancel(true)).isTrue();
    assertThat(own).isCancelled();
    assertThat(state("breaker.stage")).as("a cancel proves nothing about the resource").isEqualTo(CircuitState.OPEN);
    nextStageCallProbesAtOnce();
  }

  @Test
  void aCallersTimeoutOnTheReturnedFutureReleasesTheCallAndHandsTheProbeBack() {
    tripStageAndWait();
    CompletableFuture<String> own = new CompletableFuture<>();
    CompletableFuture<String> probe = service.stage(() -> own).orTimeout(20, TimeUnit.MILLISECONDS);
    assertThatThrownBy(() -> probe.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(TimeoutException.class);
    // As in aCallersTimeoutGivesAThreadsPermitBack: the timeout's thread wakes this one first, then
    // runs Weir's release, so the call is released just after get() returns.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while ((stats("breaker.stage").activeCalls() != 0 || !own.isCancelled()
        || state("breaker.stage") != CircuitState.OPEN) && System.nanoTime() - deadline < 0) {
      Thread.onSpinWait();
    }
    assertThat(stats("breaker.stage").activeCalls()).as("the caller gave up: the call is released").isZero();
    assertThat(own).as("and the method's own future cancelled, as on a cancel").isCancelled();
    assertThat(state("breaker.stage")).isEqualTo(CircuitState.OPEN);
    nextStageCallProbesAtOnce();
  }

  @Test
  void aCallersTimeoutGivesAThreadsPermitBack() throws Exception {
    for (int i = 0; i < 2; i++) { // both places of stage.threads, held by work that never completes
      CompletableFuture<String> timedOut = stages.held(CompletableFuture::new).orTimeout(10, TimeUnit.MILLISECONDS);
      assertThatThrownBy(() -> timedOut.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(TimeoutException.class);
    }
    // The timeout's thread wakes this one (its waiter was pushed last, so it is told first), then
    // runs the release Weir attached earlier: the permit comes back just after get() returns.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (stats("stage.threads").activeCalls() != 0 && System.nanoTime() - deadline < 0) {
      Thread.onSpinWait();
    }
    assertThat(stats("stage.threads").activeCalls()).isZero();
    assertThat(stages.held(() -> CompletableFuture.completedFuture("free")).get(5, TimeUnit.SECONDS))
        .as("a third call finds a place").isEqualTo("free");
  }

  @Test
  void aCallerCompletingTheReturnedFutureItselfReleasesTheCallToo() {
    tripStageAndWait();
    CompletableFuture<String> own = new CompletableFuture<>();
    CompletableFuture<String> probe = service.stage(() -> own);
    probe.complete("the caller's own default"); // as completeOnTimeout does
    assertThat(stats("breaker.stage").activeCalls()).isZero();
    assertThat(own).isCancelled();
    assertThat(state("breaker.stage")).isEqualTo(CircuitState.OPEN);
    nextStageCallProbesAtOnce();
  }

  @Test
  void aStageCompletedOnAnotherThreadBeforeTheMethodReturnsIsOneFailedProbe() {
    tripStageAndWait();
    CompletableFuture<String> probe = service.stage(() -> {
      CompletableFuture<String> own = new CompletableFuture<>();
      Thread other = new Thread(() -> own.completeExceptionally(new IllegalStateException("already down")));
      other.start();
      try {
        other.join(5_000);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
      return own;
    });
    assertThat(probe).isCompletedExceptionally();
    assertThat(state("breaker.stage")).isEqualTo(CircuitState.OPEN);
    assertThat(stats("breaker.stage").totalFailed()).as("two to trip, and the probe, once").isEqualTo(3);
    assertThat(stats("breaker.stage").activeCalls()).isZero();
  }

  @Test
  void aStageProbeWhoseFallbackThrowsFailsOnceAndReopens() {
    for (int i = 0; i < 2; i++) {
      service.stageWithThrowingFallback(AsyncBreakerTests::failed);
    }
    assertThat(state("breaker.stage.fallback")).isEqualTo(CircuitState.OPEN);
    ticker.advance(OPEN);
    CompletableFuture<String> own = new CompletableFuture<>();
    CompletableFuture<String> probe = service.stageWithThrowingFallback(() -> own);
    own.completeExceptionally(new IllegalStateException("probe down"));
    assertThatThrownBy(probe::join).cause().isInstanceOf(IllegalStateException.class)
        .hasMessage("the fallback failed too, after probe down");
    assertThat(state("breaker.stage.fallback")).isEqualTo(CircuitState.OPEN);
    assertThat(stats("breaker.stage.fallback").totalFailed()).isEqualTo(3);
    assertThat(stats("breaker.stage.fallback").activeCalls()).isZero();
  }

  @Test
  void aNestedRefusalInAStageIsNotAFailureOfTheOuterCall() {
    CompletableFuture<String> answer = service.nestedStage(stages::refused); // stage.refused: count 0
    assertThatThrownBy(answer::join).hasCauseInstanceOf(FlowException.class);
    assertThat(stats("breaker.nested.stage").totalFailed()).isZero();
    assertThat(state("breaker.nested.stage")).as("error-count 0 would open on one failure")
        .isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void slowRatioTimesAStageToItsCompletionNotToTheMethodsReturn() throws Exception {
    for (int i = 0; i < 2; i++) {
      CompletableFuture<String> own = new CompletableFuture<>();
      CompletableFuture<String> returned = service.slowStage(() -> own); // returns at once
      ticker.advance(Duration.ofMillis(150));
      own.complete("late");
      assertThat(returned.get(5, TimeUnit.SECONDS)).isEqualTo("late");
    }
    assertThat(state("breaker.slow.stage")).isEqualTo(CircuitState.OPEN);
  }

  @Test
  void aStageProbeThatNeverCompletesTimesOutAndTheNextCallProbes() {
    tripStageAndWait();
    CompletableFuture<String> lost = service.stage(CompletableFuture::new);
    assertThat(state("breaker.stage")).isEqualTo(CircuitState.HALF_OPEN);
    assertThat(service.stage(() -> CompletableFuture.completedFuture("x"))).as("refused while it runs")
        .isCompletedExceptionally();
    ticker.advance(OPEN); // the probe timeout of an error breaker
    assertThat(service.stage(() -> CompletableFuture.completedFuture("x")).join()).isEqualTo("x");
    assertThat(state("breaker.stage")).isEqualTo(CircuitState.CLOSED);
    lost.cancel(false);
    assertThat(state("breaker.stage")).as("the lost probe, cancelled late, decides nothing")
        .isEqualTo(CircuitState.CLOSED);
  }

  // --- Mono ---

  @Test
  void aMonoProbeCancelledBeforeItsValueIsHandedBack() {
    tripMonoAndWait("breaker.mono");
    Disposable probe = service.mono(Mono::never).subscribe();
    assertThat(state("breaker.mono")).isEqualTo(CircuitState.HALF_OPEN);
    probe.dispose();
    assertThat(stats("breaker.mono").activeCalls()).isZero();
    assertThat(state("breaker.mono")).as("a cancel proves nothing about the resource").isEqualTo(CircuitState.OPEN);
    assertThat(service.mono(() -> Mono.just("up")).block(Duration.ofSeconds(5))).as("the next call probes at once")
        .isEqualTo("up");
    assertThat(state("breaker.mono")).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void aMonoProbeTimedOutDownstreamIsReleasedAndHandedBack() {
    tripMonoAndWait("breaker.mono");
    assertThatThrownBy(() -> service.mono(Mono::never).timeout(Duration.ofMillis(20)).block(Duration.ofSeconds(5)))
        .hasCauseInstanceOf(TimeoutException.class);
    assertThat(stats("breaker.mono").activeCalls()).isZero();
    assertThat(state("breaker.mono")).isEqualTo(CircuitState.OPEN);
    assertThat(service.mono(() -> Mono.just("up")).block(Duration.ofSeconds(5))).isEqualTo("up");
    assertThat(state("breaker.mono")).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void anEmptyMonoIsASuccessfulProbe() {
    tripMonoAndWait("breaker.mono");
    assertThat(service.mono(Mono::empty).block(Duration.ofSeconds(5))).isNull();
    assertThat(state("breaker.mono")).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void aMonoSubscribedTwiceInHalfOpenAdmitsOneProbeAndANeverSubscribedOneNone() {
    tripMonoAndWait("breaker.mono");
    Mono<String> assembled = service.mono(Mono::never);
    assertThat(state("breaker.mono")).as("assembled, not subscribed: no probe taken").isEqualTo(CircuitState.OPEN);
    AtomicReference<Throwable> second = new AtomicReference<>();
    Disposable first = assembled.subscribe();
    assembled.subscribe(value -> { }, second::set);
    assertThat(second.get()).as("the second subscription, while the first probes").isInstanceOf(DegradeException.class);
    assertThat(stats("breaker.mono").activeCalls()).isEqualTo(1);
    first.dispose();
  }

  @Test
  void aMonoProbeThatNeverSignalsTimesOutAndTheNextCallProbes() {
    tripMonoAndWait("breaker.mono");
    Disposable lost = service.mono(Mono::never).subscribe();
    assertThat(state("breaker.mono")).isEqualTo(CircuitState.HALF_OPEN);
    ticker.advance(OPEN);
    assertThat(service.mono(() -> Mono.just("up")).block(Duration.ofSeconds(5))).isEqualTo("up");
    assertThat(state("breaker.mono")).isEqualTo(CircuitState.CLOSED);
    lost.dispose();
    assertThat(state("breaker.mono")).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void aMonoProbeWhoseFallbackThrowsFailsOnceAndReopens() {
    for (int i = 0; i < 2; i++) {
      service.monoWithThrowingFallback(() -> Mono.error(new IllegalStateException("down"))).onErrorReturn("x")
          .block(Duration.ofSeconds(5));
    }
    assertThat(state("breaker.mono.fallback")).isEqualTo(CircuitState.OPEN);
    ticker.advance(OPEN);
    assertThatThrownBy(() -> service.monoWithThrowingFallback(() -> Mono.error(new IllegalStateException("probe down")))
        .block(Duration.ofSeconds(5))).isInstanceOf(IllegalStateException.class)
        .hasMessage("the fallback failed too, after probe down");
    assertThat(state("breaker.mono.fallback")).isEqualTo(CircuitState.OPEN);
    assertThat(stats("breaker.mono.fallback").totalFailed()).isEqualTo(3);
  }

  @Test
  void aNestedRefusalInAMonoIsNotAFailureOfTheOuterCall() {
    assertThatThrownBy(() -> service.nestedMono(reactive::refused).block(Duration.ofSeconds(5)))
        .isInstanceOf(FlowException.class); // mono.refused: count 0
    assertThat(stats("breaker.nested.mono").totalFailed()).isZero();
    assertThat(state("breaker.nested.mono")).isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void slowRatioTimesAMonoToItsValue() {
    tripMonoAndWait("breaker.slow.mono"); // two calls whose value came 150 ms after the subscription
    assertThat(service.slowMono(() -> Mono.just("fast")).block(Duration.ofSeconds(5))).isEqualTo("fast");
    assertThat(state("breaker.slow.mono")).as("a fast probe closes").isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void aSlowRatioMonoCancelledPastTheThresholdIsASlowProbe() {
    tripMonoAndWait("breaker.slow.mono");
    Disposable probe = service.slowMono(Mono::never).subscribe();
    ticker.advance(Duration.ofMillis(101));
    probe.dispose();
    assertThat(state("breaker.slow.mono")).isEqualTo(CircuitState.OPEN);
    assertThatThrownBy(() -> service.slowMono(() -> Mono.just("x")).block(Duration.ofSeconds(5)))
        .isInstanceOf(DegradeException.class).extracting(e -> ((BlockException) e).retryAfter()).isEqualTo(OPEN);
  }

  // --- Flux ---

  @Test
  void aFluxProbeCancelledAfterItsFirstElementSucceededAndOneCancelledBeforeAnyIsHandedBack() {
    for (int i = 0; i < 2; i++) {
      service.flux(() -> Flux.error(new IllegalStateException("down"))).onErrorReturn(-1L).blockLast(Duration.ofSeconds(5));
    }
    assertThat(state("breaker.flux")).isEqualTo(CircuitState.OPEN);
    ticker.advance(OPEN);

    Disposable silent = service.flux(Flux::never).subscribe();
    assertThat(state("breaker.flux")).isEqualTo(CircuitState.HALF_OPEN);
    silent.dispose();
    assertThat(state("breaker.flux")).as("no element, then cancelled: nothing known").isEqualTo(CircuitState.OPEN);

    assertThat(service.flux(() -> Flux.just(1L, 2L, 3L)).take(1).blockLast(Duration.ofSeconds(5))).isEqualTo(1L);
    assertThat(state("breaker.flux")).as("an element came: the resource answered").isEqualTo(CircuitState.CLOSED);
    assertThat(stats("breaker.flux").activeCalls()).isZero();
  }
}
