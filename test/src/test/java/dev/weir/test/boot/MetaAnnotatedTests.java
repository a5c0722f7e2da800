package dev.weir.test.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.test.DrivenTicker;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;

/** {@code @AutoConfigureWeirTest} through an annotation of the application's: time driven, engine reset. */
@GreetingTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MetaAnnotatedTests {

  @Autowired
  Weir weir;

  @Autowired
  GreetingApplication.Greeter greeter;

  @Autowired
  DrivenTicker ticker;

  @Test
  @Order(1)
  void first() {
    assertThat(weir.ticker()).isSameAs(ticker);
    Greetings.startsCleanAndAdmitsTheFullCount(weir, greeter);
  }

  @Test
  @Order(2)
  void second() {
    Greetings.startsCleanAndAdmitsTheFullCount(weir, greeter);
  }
}
