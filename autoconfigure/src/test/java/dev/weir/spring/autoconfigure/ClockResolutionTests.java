package dev.weir.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code weir.clock-resolution}: a coarse clock of the engine's own when set, validated, ended with the context. */
class ClockResolutionTests {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class));

  private static long clockThreads() {
    Set<Thread> threads = Thread.getAllStackTraces().keySet();
    return threads.stream().filter(thread -> thread.getName().equals("weir-clock") && thread.isAlive()).count();
  }

  @Test
  void aResolutionGivesTheEngineAClockThreadThatEndsWithTheContext() throws InterruptedException {
    long before = clockThreads();
    runner.withPropertyValues("weir.clock-resolution=1ms").run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBean(Weir.class).entry("r").isOpen()).isTrue();
      assertThat(clockThreads()).as("the engine's clock thread").isEqualTo(before + 1);
    });
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (clockThreads() > before && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(clockThreads()).as("ended when the context closed the engine").isEqualTo(before);
  }

  @Test
  void withoutOneTheEngineReadsTheClockOnEveryCall() {
    long before = clockThreads();
    runner.run(context -> assertThat(clockThreads()).isEqualTo(before));
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
