package dev.weir.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Each {@link ReactiveBenchmark} state sets up as JMH would, checking in its {@code @Setup} that its
 * calls go through its library's guard and are counted by it; then each future benchmark once.
 * (The Mono benchmarks need a JMH blackhole, which only JMH makes.)
 */
class ReactiveBenchmarkSmokeTest {

  private final ReactiveBenchmark benchmark = new ReactiveBenchmark();

  @Test
  void weirCountsItsReactiveAndFutureCalls() {
    ReactiveBenchmark.WeirState state = new ReactiveBenchmark.WeirState();
    state.setUp();
    try {
      ReactiveBenchmark.Input input = new ReactiveBenchmark.Input();
      assertThat(benchmark.weir_futureQps(state, input)).isEqualTo("x");
      assertThat(state.service.monoThreads("y").block()).isEqualTo("y");
    } finally {
      state.tearDown();
    }
  }

  @Test
  void resilience4jsAnnotationCountsItsSubscriptions() {
    ReactiveBenchmark.Resilience4jAnnotationState state = new ReactiveBenchmark.Resilience4jAnnotationState();
    state.setUp();
    try {
      assertThat(state.service.monoRateLimiter("y").block()).isEqualTo("y");
    } finally {
      state.tearDown();
    }
  }

  @Test
  void resilience4jsDecoratorsAnswer() {
    ReactiveBenchmark.Resilience4jState state = new ReactiveBenchmark.Resilience4jState();
    state.setUp();
    assertThat(benchmark.resilience4j_futureRateLimiter(state)).isEqualTo("x");
    assertThat(benchmark.resilience4j_futureBulkhead(state)).isEqualTo("x");
  }
}
