package dev.weir.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The plumbing of the fuzz tests fails as they rely on it: an input that throws (an {@link Error}
 * too), answers null or takes longer than the bound fails the test with the seed, the try and the
 * input; the same seed gives the same inputs, and each property its own.
 */
@Timeout(150)
class FuzzPlumbingTests {

  private final Fuzz fuzz = Fuzz.of(42, 5, Duration.ofMillis(300), Duration.ofSeconds(1));

  @Test
  void theSeedAndTriesAreTheDefaultsUnlessTheSystemPropertiesSayOtherwise() {
    assertThat(fuzz.seed()).isEqualTo(Long.getLong(Fuzz.SEED_PROPERTY, 42));
    assertThat(fuzz.tries()).isEqualTo(Integer.getInteger(Fuzz.TRIES_PROPERTY, 5));
  }

  @Test
  void eachTryOfAPropertyDrawsFromThatPropertysOwnSeededGenerator() {
    List<Long> drawn = new ArrayList<>();
    int accepted = fuzz.forEachTry(3, "numbers", (attempt, random) -> {
      drawn.add(random.nextLong());
      return attempt % 2 == 0;
    });
    SplittableRandom expected = new SplittableRandom(fuzz.seed() + 3);
    List<Long> again = new ArrayList<>();
    for (int i = 0; i < fuzz.tries(); i++) {
      again.add(expected.nextLong());
    }
    assertThat(drawn).isEqualTo(again).doesNotContainAnyElementsOf(List.of(fuzz.random(2).nextLong()));
    assertThat(accepted).isEqualTo((fuzz.tries() + 1) / 2);
  }

  @Test
  void anAnswerInTimeIsReturned() {
    assertThat(fuzz.answered("read", 0, "input", () -> "answer")).isEqualTo("answer");
  }

  @Test
  void anErrorFailsTheTestNamingTheSeedTheTryAndTheInput() {
    assertThatThrownBy(() -> fuzz.answered("read", 7, "{[", () -> {
      throw new StackOverflowError();
    })).isInstanceOf(AssertionError.class).hasCauseInstanceOf(StackOverflowError.class)
        .hasMessage("read threw java.lang.StackOverflowError (seed " + fuzz.seed() + ", try 7, 2 characters;"
            + " replay with -Dweir-test.fuzz.seed=" + fuzz.seed() + " -Dweir-test.fuzz.tries=8): {[");
  }

  @Test
  void nullFailsTheTest() {
    assertThatThrownBy(() -> fuzz.answered("read", 1, "x", () -> null)).isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("read answered null (seed ");
  }

  @Test
  void aCallThatWaitsFailsTheTestAtTheHangGuardAndIsInterrupted() throws InterruptedException {
    CountDownLatch interrupted = new CountDownLatch(1);
    assertThatThrownBy(() -> fuzz.answered("read", 2, "x", () -> {
      try {
        Thread.sleep(600_000);
      } catch (InterruptedException ex) {
        interrupted.countDown();
      }
      return "late";
    })).isInstanceOf(AssertionError.class).hasMessageStartingWith("read gave no answer within PT1S (seed ");
    // Interrupted, hence failed before the sleep ended.
    assertThat(interrupted.await(60, TimeUnit.SECONDS)).isTrue();
  }

  /** A call that works past the CPU bound fails, however long the machine took to give it that CPU time. */
  @Test
  void aCallThatWorksPastTheCpuBoundFailsTheTestAndIsInterrupted() throws InterruptedException {
    Fuzz patient = Fuzz.of(42, 5, Duration.ofMillis(300)); // the default hang guard: CPU time comes first
    CountDownLatch interrupted = new CountDownLatch(1);
    assertThatThrownBy(() -> patient.answered("read", 3, "x", () -> {
      long spins = 0;
      while (!Thread.currentThread().isInterrupted()) {
        spins++;
      }
      interrupted.countDown();
      return "late after " + spins;
    })).isInstanceOf(AssertionError.class).hasMessageStartingWith("read took more than PT0.3S of CPU time (seed ");
    assertThat(interrupted.await(60, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void workOnTheCallingThreadPastTheCpuBoundFailsTheTest() {
    long start = CpuTime.current();
    while (CpuTime.current() - start <= Duration.ofMillis(300).toNanos()) {
      Thread.onSpinWait();
    }
    assertThatThrownBy(() -> fuzz.withinBound(start, "compile", 4, "x")).isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("compile took PT0.3");
    fuzz.withinBound(CpuTime.current(), "compile", 5, "x"); // no work: within the bound
  }

  @Test
  void aLongInputIsShownByItsStartAndItsLength() {
    String input = "a".repeat(20_000);
    assertThat(fuzz.describe("bad", 0, input)).contains("20000 characters").endsWith("a".repeat(10_000) + "...")
        .hasSizeLessThan(10_200);
  }
}
