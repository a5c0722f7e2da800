package dev.weir.test.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Ticker;
import dev.weir.Weir;
import dev.weir.test.AutoConfigureWeirTest;
import dev.weir.test.DrivenTicker;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

/** With a {@code Ticker} bean of the application's, the annotation declares none; it still resets. */
@SpringBootTest
@AutoConfigureWeirTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OwnTickerTests {

  /** A clock standing still at one reading. */
  static final AtomicLong NOW = new AtomicLong(123_456_789L);

  @TestConfiguration(proxyBeanMethods = false)
  static class OwnTime {
    @Bean
    Ticker standingClock() {
      return NOW::get;
    }
  }

  @Autowired
  Weir weir;

  @Autowired
  Ticker ticker;

  @Autowired
  ApplicationContext context;

  @Autowired
  GreetingApplication.Greeter greeter;

  @Test
  @Order(1)
  void theApplicationsTickerIsUsed() {
    assertThat(context.getBeansOfType(DrivenTicker.class)).isEmpty();
    assertThat(weir.ticker()).isSameAs(ticker);
    assertThat(weir.ticker().read()).isEqualTo(123_456_789L);
    Greetings.startsCleanAndAdmitsTheFullCount(weir, greeter);
  }

  @Test
  @Order(2)
  void andTheEngineIsStillReset() {
    Greetings.startsCleanAndAdmitsTheFullCount(weir, greeter);
  }
}
