package dev.weir.test.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.FlowException;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.test.DrivenTicker;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A class without {@code @AutoConfigureWeirTest} is not reset, though weir-test is on the class
 * path: the second method still sees what the first did. Its time is a {@code DrivenTicker} bean of
 * its own, declared as any {@code Ticker} bean is, so that nothing moves between the two.
 */
@SpringBootTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WithoutTheAnnotationTests {

  @TestConfiguration(proxyBeanMethods = false)
  static class OwnTime {
    @Bean
    DrivenTicker ownTicker() {
      return new DrivenTicker();
    }
  }

  @Autowired
  Weir weir;

  @Autowired
  GreetingApplication.Greeter greeter;

  @Autowired
  DrivenTicker ticker;

  @Test
  @Order(1)
  void fillsTheWindow() {
    assertThat(weir.ticker()).isSameAs(ticker);
    Greetings.startsCleanAndAdmitsTheFullCount(weir, greeter);
  }

  @Test
  @Order(2)
  void findsItStillFull() {
    ResourceStatistics stats = weir.statistics("greet");
    assertThat(stats).isNotNull();
    assertThat(stats.totalPassed()).as("the first method's calls").isEqualTo(2);
    assertThat(stats.totalBlocked()).isEqualTo(1);
    assertThatThrownBy(() -> greeter.greet("d")).as("the window is still full").isInstanceOf(FlowException.class);
  }
}
