package dev.weir.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.Entry;
import dev.weir.FlowException;
import dev.weir.Sleeper;
import dev.weir.Ticker;
import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The auto-configuration {@link AutoConfigureWeirTest} imports, next to Weir's own. */
class WeirTestAutoConfigurationTest {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirTestAutoConfiguration.class))
      .withPropertyValues("weir.flow[0].resource=r", "weir.flow[0].count=2",
          "weir.flow[1].resource=q", "weir.flow[1].count=10", "weir.flow[1].control-behavior=queue",
          "weir.flow[1].max-queueing-time=1s");

  @Test
  void theEngineRunsOnTheDrivenTicker() {
    runner.run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(DrivenTicker.class).hasSingleBean(Ticker.class)
          .hasSingleBean(Sleeper.class);
      DrivenTicker ticker = context.getBean(DrivenTicker.class);
      Weir weir = context.getBean(Weir.class);
      assertThat(weir.ticker()).isSameAs(ticker);

      weir.entry("r").close();
      weir.entry("r").close();
      assertThatThrownBy(() -> weir.entry("r")).isInstanceOf(FlowException.class);
      ticker.advance(Duration.ofSeconds(1));
      weir.entry("r").close();
    });
  }

  @Test
  void queuedCallsSleepOnTheDrivenTicker() {
    runner.run(context -> {
      DrivenTicker ticker = context.getBean(DrivenTicker.class);
      Weir weir = context.getBean(Weir.class);
      long start = ticker.read();
      for (int i = 0; i < 3; i++) {
        try (Entry entry = weir.entry("q")) {
          assertThat(ticker.read() - start).isEqualTo(i * 100_000_000L);
        }
      }
      assertThat(ticker.slept()).isEqualTo(Duration.ofMillis(200));
    });
  }

  @Test
  void aTickerOfTheApplicationWins() {
    AtomicLong nanos = new AtomicLong(5);
    Ticker own = nanos::get;
    runner.withBean(Ticker.class, () -> own).run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(DrivenTicker.class);
      assertThat(context.getBean(Weir.class).ticker()).isSameAs(own);
    });
  }

  @Test
  void aSleeperOfTheApplicationAloneAlsoKeepsItsOwnTimeAndNothingIsAmbiguous() {
    AtomicLong slept = new AtomicLong();
    Sleeper own = slept::addAndGet;
    runner.withBean(Sleeper.class, () -> own).run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(DrivenTicker.class).hasSingleBean(Sleeper.class);
      Weir weir = context.getBean(Weir.class);
      weir.entry("q").close();
      weir.entry("q").close(); // queued: the application's sleeper is asked to wait
      assertThat(slept.get()).isPositive();
    });
  }

  @Test
  void aDrivenTickerOfTheApplicationIsTheOneUsed() {
    DrivenTicker own = new DrivenTicker(0);
    runner.withBean("myTicker", DrivenTicker.class, () -> own).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(DrivenTicker.class);
      assertThat(context.getBean(DrivenTicker.class)).isSameAs(own);
      assertThat(context.getBean(Weir.class).ticker()).isSameAs(own);
    });
  }

  @Test
  void withWeirTurnedOffTheTickerIsHarmless() {
    runner.withPropertyValues("weir.enabled=false").run(context -> {
      assertThat(context).hasNotFailed().doesNotHaveBean(Weir.class).hasSingleBean(DrivenTicker.class);
    });
  }
}
