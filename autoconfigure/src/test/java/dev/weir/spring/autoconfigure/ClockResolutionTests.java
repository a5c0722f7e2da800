package dev.weir.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Ticker;
import dev.weir.Weir;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code weir.clock-resolution}: by default a coarse clock of the engine's own (1 ms), none with
 * {@code 0} or with a ticker bean of the application's own; validated; ended with the context. The
 * engines of other tests in this JVM have clock threads too, so each test looks for the threads its
 * context started (present now, absent before), by identity.
 */
class ClockResolutionTests {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class));

  private static Set<Thread> clockThreads() {
    Set<Thread> clocks = new HashSet<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.getName().equals("weir-clock") && thread.isAlive()) {
        clocks.add(thread);
      }
    }
    return clocks;
  }

  private static List<Thread> startedSince(Set<Thread> before) {
    return clockThreads().stream().filter(thread -> !before.contains(thread)).toList();
  }

  @Test
  void byDefaultTheEngineHasAClockThreadThatEndsWithTheContext() throws InterruptedException {
    Set<Thread> before = clockThreads();
    Thread[] started = new Thread[1];
    runner.run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBean(Weir.class).entry("r").isOpen()).isTrue();
      List<Thread> mine = startedSince(before);
      assertThat(mine).as("the engine's clock thread").hasSize(1);
      started[0] = mine.get(0);
    });
    started[0].join(5_000);
    assertThat(started[0].isAlive()).as("ended when the context closed the engine").isFalse();
  }

  @Test
  void aResolutionSetIsTheEngines() {
    Set<Thread> before = clockThreads();
    runner.withPropertyValues("weir.clock-resolution=100us").run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(startedSince(before)).hasSize(1);
    });
  }

  @Test
  void zeroOrATickerBeanOfTheApplicationsOwnReadsTheClockOnEveryCall() {
    Set<Thread> before = clockThreads();
    runner.withPropertyValues("weir.clock-resolution=0").run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(startedSince(before)).isEmpty();
    });
    runner.withBean(Ticker.class, () -> System::nanoTime).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(startedSince(before)).as("a ticker of the application's own drives every reading").isEmpty();
    });
  }

  @Test
  void aResolutionOutOfRangeStopsTheStartNamingTheProperty() {
    runner.withPropertyValues("weir.clock-resolution=1s").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("weir.clock-resolution")
          .hasMessageContaining("from 10us to 10ms");
    });
  }
}
