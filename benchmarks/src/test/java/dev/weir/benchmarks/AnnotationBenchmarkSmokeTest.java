package dev.weir.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Each {@link AnnotationBenchmark} state starts its application and checks, in its {@code @Setup},
 * that its calls really go through its library's guard (a proxy with the library's advice, calls
 * counted by the library); then one call of each benchmark method, as JMH would make it. A few
 * seconds: five small Spring Boot applications.
 */
class AnnotationBenchmarkSmokeTest {

  private final AnnotationBenchmark benchmark = new AnnotationBenchmark();
  private final AnnotationBenchmark.Refusals refusals = new AnnotationBenchmark.Refusals();

  @Test
  void plain() {
    AnnotationBenchmark.PlainState state = new AnnotationBenchmark.PlainState();
    state.setUp();
    try {
      assertThat(benchmark.annotation_plain(state, refusals)).isEqualTo("x");
    } finally {
      state.tearDown();
    }
    assertThat(refusals.refused).isZero();
  }

  @Test
  void noopAspect() {
    AnnotationBenchmark.NoopState state = new AnnotationBenchmark.NoopState();
    state.setUp();
    try {
      assertThat(benchmark.annotation_noopAspect(state, refusals)).isEqualTo("x");
    } finally {
      state.tearDown();
    }
    assertThat(refusals.refused).isZero();
  }

  @Test
  void weir() {
    AnnotationBenchmark.WeirState state = new AnnotationBenchmark.WeirState();
    state.setUp();
    try {
      assertThat(benchmark.annotation_weir(state, refusals)).isEqualTo("x");
    } finally {
      state.tearDown();
    }
    assertThat(refusals.refused).isZero();
  }

  @Test
  void sentinel() {
    AnnotationBenchmark.SentinelState state = new AnnotationBenchmark.SentinelState();
    state.setUp();
    try {
      assertThat(benchmark.annotation_sentinel(state, refusals)).isEqualTo("x");
    } finally {
      state.tearDown();
    }
    assertThat(refusals.refused).isZero();
  }

  @Test
  void resilience4j() {
    AnnotationBenchmark.Resilience4jState state = new AnnotationBenchmark.Resilience4jState();
    state.setUp();
    try {
      assertThat(benchmark.annotation_resilience4j(state, refusals)).isEqualTo("x");
    } finally {
      state.tearDown();
    }
    assertThat(refusals.refused).isZero();
  }
}
