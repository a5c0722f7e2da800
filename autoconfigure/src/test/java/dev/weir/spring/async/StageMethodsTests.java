package dev.weir.spring.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.FlowException;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.spring.test.ManualTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** {@code @RateLimited} methods returning a {@code CompletionStage}: guarded until the stage completes. */
@SpringBootTest(classes = AsyncTestApplication.class, properties = "spring.config.name=async-test")
@Timeout(30)
class StageMethodsTests {

  @Autowired
  Weir weir;

  @Autowired
  StageService service;

  @Autowired
  ManualTicker ticker;

  @BeforeEach
  void freshStatistics() {
    weir.reset();
  }

  @Test
  void theEntryIsHeldUntilTheStageCompletesAndARefusalFailsTheStage() throws Exception {
    List<CompletableFuture<String>> work = new ArrayList<>();
    List<CompletableFuture<String>> returned = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      CompletableFuture<String> own = new CompletableFuture<>();
      work.add(own);
      returned.add(service.held(() -> own)); // never throws: a refusal is the stage's outcome
    }
    ResourceStatistics stats = weir.statistics("stage.threads");
    assertThat(stats.activeCalls()).as("two places, both held by incomplete stages").isEqualTo(2);
    for (int i = 2; i < 5; i++) {
      assertThat(returned.get(i)).isCompletedExceptionally();
      assertThatThrownBy(returned.get(i)::get).hasCauseInstanceOf(FlowException.class);
    }
    work.get(0).complete("first");
    assertThat(returned.get(0).get(5, TimeUnit.SECONDS)).isEqualTo("first");
    assertThat(stats.activeCalls()).isEqualTo(1);
    CompletableFuture<String> late = new CompletableFuture<>();
    CompletableFuture<String> admitted = service.held(() -> late);
    assertThat(admitted).isNotDone();
    work.get(1).completeExceptionally(new IllegalStateException("boom"));
    late.complete("late");
    assertThatThrownBy(() -> returned.get(1).get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(IllegalStateException.class);
    assertThat(admitted.get(5, TimeUnit.SECONDS)).isEqualTo("late");
    assertThat(stats.activeCalls()).isZero();
    assertThat(stats.totalPassed()).isEqualTo(3);
    assertThat(stats.totalBlocked()).isEqualTo(3);
    assertThat(stats.totalSucceeded()).isEqualTo(2);
    assertThat(stats.totalFailed()).isEqualTo(1);
  }

  @Test
  void theResponseTimeRunsUntilTheStageCompletes() throws Exception {
    CompletableFuture<String> own = new CompletableFuture<>();
    CompletableFuture<String> returned = service.held(() -> own);
    ticker.advance(Duration.ofMillis(60));
    own.complete("done");
    returned.get(5, TimeUnit.SECONDS);
    assertThat(weir.statistics("stage.threads").totalResponseTimeNanos()).isEqualTo(Duration.ofMillis(60).toNanos());
  }

  @Test
  void cancellingTheReturnedFutureReleasesThePlaceAndCancelsTheMethodsFuture() {
    CompletableFuture<String> own = new CompletableFuture<>();
    CompletableFuture<String> returned = service.held(() -> own);
    assertThat(weir.statistics("stage.threads").activeCalls()).isEqualTo(1);
    assertThat(returned.cancel(true)).isTrue();
    assertThat(weir.statistics("stage.threads").activeCalls()).isZero();
    assertThat(own).isCancelled();
    assertThat(weir.statistics("stage.threads").totalFailed()).as("a cancelled call is not a failure").isZero();
  }

  /** A stage of the application's own that refuses callbacks. */
  static final class CallbackRefusingStage extends CompletableFuture<String> {
    @Override
    public CompletableFuture<String> whenComplete(java.util.function.BiConsumer<? super String, ? super Throwable> action) {
      throw new UnsupportedOperationException("no callbacks");
    }
  }

  @Test
  void aStageThatRefusesTheCallbackGivesThePlaceBackAndTheFailureReachesTheCaller() {
    assertThatThrownBy(() -> service.held(CallbackRefusingStage::new))
        .isInstanceOf(UnsupportedOperationException.class);
    assertThat(weir.statistics("stage.threads").activeCalls()).isZero();
    assertThat(weir.statistics("stage.threads").totalPassed()).isEqualTo(1);
  }

  @Test
  void aRefusalWithoutAHandlerIsTheStagesErrorNeverThrown() {
    CompletableFuture<String> returned = service.refused();
    assertThat(returned).isCompletedExceptionally();
    assertThatThrownBy(returned::join).hasCauseInstanceOf(FlowException.class);
    assertThat(weir.statistics("stage.refused").totalBlocked()).isEqualTo(1);
  }

  @Test
  void aBlockHandlerMayAnswerWithAStage() throws Exception {
    CompletionStage<String> answer = weir.callInContext("test", "blocked",
        () -> service.handled(() -> CompletableFuture.completedFuture("unused")));
    assertThat(answer.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("busy:" + "FLOW");
  }

  @Test
  void anExceptionalCompletionGoesToTheFallbackWhosePlainValueCompletesTheStage() throws Exception {
    CompletableFuture<String> own = new CompletableFuture<>();
    CompletionStage<String> returned = service.handled(() -> own);
    own.completeExceptionally(new IllegalStateException("late failure"));
    assertThat(returned.toCompletableFuture().get(5, TimeUnit.SECONDS)).isEqualTo("fallback:late failure");
    ResourceStatistics stats = weir.statistics("stage.handled");
    assertThat(stats.totalFailed()).isEqualTo(1);
    assertThat(stats.activeCalls()).isZero();
  }

  @Test
  void anIgnoredExceptionCompletesTheStageUntouchedAndUncounted() {
    CompletableFuture<String> own = new CompletableFuture<>();
    CompletionStage<String> returned = service.handled(() -> own);
    IllegalArgumentException ignored = new IllegalArgumentException("ignored");
    own.completeExceptionally(ignored);
    assertThatThrownBy(() -> returned.toCompletableFuture().get(5, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class).cause().isSameAs(ignored);
    ResourceStatistics stats = weir.statistics("stage.handled");
    assertThat(stats.totalFailed()).isZero();
    assertThat(stats.totalSucceeded()).isEqualTo(1);
  }

  @Test
  void aFailureThrownBeforeAStageExistsIsRoutedAndTheAnswerIsAStage() throws Exception {
    CompletableFuture<String> returned = service.throwsBeforeReturning("early");
    assertThat(returned.get(5, TimeUnit.SECONDS)).isEqualTo("fallback:early");
    assertThat(weir.statistics("StageService.throwsBeforeReturning")).isNull();
    assertThat(weir.statistics("stage.throws").totalFailed()).isEqualTo(1);
  }

  @Test
  void cancellingAfterCompletionChangesNothing() throws Exception {
    CompletableFuture<String> returned = service.held(() -> CompletableFuture.completedFuture("done"));
    assertThat(returned.get(5, TimeUnit.SECONDS)).isEqualTo("done");
    assertThat(returned.cancel(true)).isFalse();
    assertThat(returned).isNotCancelled();
    assertThat(weir.statistics("stage.threads").totalSucceeded()).isEqualTo(1);
  }

  /**
   * Real threads: calls from four threads whose stages complete on a pool after a random delay,
   * fail now and then, or are cancelled by the caller. With two places, never more than two stages
   * are incomplete at once (counted by the work itself, from its start until just before it
   * completes its stage), every call is passed or blocked, every passed one succeeded or failed, and
   * none is active after.
   */
  @Test
  void conservationAndTheThreadsLimitUnderConcurrency() throws Exception {
    java.util.concurrent.ScheduledExecutorService pool = java.util.concurrent.Executors.newScheduledThreadPool(3);
    java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger maxRunning = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicLong attempts = new java.util.concurrent.atomic.AtomicLong();
    java.util.Queue<Throwable> unexpected = new java.util.concurrent.ConcurrentLinkedQueue<>();
    Thread[] threads = new Thread[4];
    try {
      for (int t = 0; t < threads.length; t++) {
        threads[t] = new Thread(() -> {
          for (int i = 0; i < 200; i++) {
            java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
            boolean fail = random.nextInt(10) == 0;
            boolean cancel = random.nextInt(10) == 0;
            long delay = random.nextInt(1500);
            attempts.incrementAndGet();
            // ended until the work starts: a refused call never runs it
            java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean(true);
            Runnable end = () -> {
              if (ended.compareAndSet(false, true)) {
                running.decrementAndGet();
              }
            };
            CompletableFuture<String> returned = service.held(() -> {
              CompletableFuture<String> own = new CompletableFuture<>();
              ended.set(false);
              maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
              pool.schedule(() -> {
                end.run(); // before the stage completes and gives the place back
                if (fail) {
                  own.completeExceptionally(new IllegalStateException("fail"));
                } else {
                  own.complete("ok");
                }
              }, delay, java.util.concurrent.TimeUnit.MICROSECONDS);
              return own;
            });
            if (cancel) {
              end.run(); // before the cancel gives the place back
              returned.cancel(false);
              continue;
            }
            try {
              returned.get(5, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
              if (!(e.getCause() instanceof FlowException) && !(e.getCause() instanceof IllegalStateException)) {
                unexpected.add(e);
              }
            } catch (Exception e) {
              unexpected.add(e);
            }
          }
        });
        threads[t].start();
      }
      for (Thread thread : threads) {
        thread.join(TimeUnit.SECONDS.toMillis(25));
      }
    } finally {
      pool.shutdown();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(unexpected).isEmpty();
    ResourceStatistics stats = weir.statistics("stage.threads");
    assertThat(maxRunning.get()).isBetween(1, 2);
    assertThat(stats.totalPassed() + stats.totalBlocked()).isEqualTo(attempts.get());
    assertThat(stats.totalSucceeded() + stats.totalFailed()).isEqualTo(stats.totalPassed());
    assertThat(stats.totalFailed()).isPositive();
    assertThat(stats.totalBlocked()).isPositive();
    assertThat(stats.activeCalls()).isZero();
  }
}
