package dev.weir.test.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.test.AutoConfigureWeirTest;
import dev.weir.test.DrivenTicker;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;

/** {@link AutoConfigureWeirTest} on a real Spring Boot application: the test drives the engine's time. */
@SpringBootTest
@AutoConfigureWeirTest
class DrivenTimeTests {

  @Autowired
  DrivenTicker ticker;

  @Autowired
  Weir weir;

  @Autowired
  GreetingApplication.Greeter greeter;

  @Autowired
  ConfigurableApplicationContext context;

  @Test
  void theEngineReadsTheDrivenTicker() {
    assertThat(weir.ticker()).isSameAs(ticker);
    assertThat(context.getBeansOfType(dev.weir.Ticker.class)).containsOnlyKeys("weirDrivenTicker");
    assertThat(context.getBeansOfType(dev.weir.Sleeper.class)).containsOnlyKeys("weirDrivenTicker");
  }

  @Test
  void advancingTheTickerMovesTheRulesWindow() {
    assertThat(greeter.greet("a")).isEqualTo("hello a");
    assertThat(greeter.greet("b")).isEqualTo("hello b");
    BlockException refused = catchBlock(() -> greeter.greet("c"));
    assertThat(refused).isInstanceOf(FlowException.class);
    assertThat(refused.resource()).isEqualTo("greet");
    assertThatThrownBy(() -> greeter.greet("d")).as("time stands still").isInstanceOf(FlowException.class);
    ticker.advance(Duration.ofSeconds(1));
    assertThat(greeter.greet("e")).isEqualTo("hello e");
    assertThat(greeter.greet("f")).isEqualTo("hello f");
    assertThatThrownBy(() -> greeter.greet("g")).isInstanceOf(FlowException.class);
  }

  @Test
  void queuedCallsAdvanceTheTickerInsteadOfWaiting() {
    long start = ticker.read();
    Duration sleptBefore = ticker.slept();
    for (int i = 0; i < 5; i++) {
      try (Entry entry = weir.entry("queued")) {
        assertThat(ticker.read() - start).isEqualTo(i * 100_000_000L);
      }
    }
    assertThat(ticker.slept().minus(sleptBefore)).isEqualTo(Duration.ofMillis(400));
  }

  @Test
  void theTestAutoConfigurationComesBeforeWeirs() {
    List<String> names = Arrays.asList(context.getBeanFactory().getBeanDefinitionNames());
    assertThat(names.indexOf("dev.weir.test.WeirTestAutoConfiguration")).isNotNegative()
        .isLessThan(names.indexOf("dev.weir.spring.autoconfigure.WeirAutoConfiguration"));
  }

  private static BlockException catchBlock(Runnable call) {
    try {
      call.run();
    } catch (BlockException e) {
      return e;
    }
    throw new AssertionError("not refused");
  }
}
