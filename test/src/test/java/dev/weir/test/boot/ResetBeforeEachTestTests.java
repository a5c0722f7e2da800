package dev.weir.test.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.CircuitState;
import dev.weir.Entry;
import dev.weir.Weir;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.RuleSet;
import dev.weir.test.AutoConfigureWeirTest;
import dev.weir.test.DrivenTicker;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/**
 * Each test method starts from a clean engine. Time never moves here, so without the reset the
 * second method would find the first one's calls in the statistics and the window already full.
 * The order is fixed only so that a missing reset fails every run; each method asserts the same.
 */
@SpringBootTest
@AutoConfigureWeirTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ResetBeforeEachTestTests {

  @Autowired
  Weir weir;

  @Autowired
  GreetingApplication.Greeter greeter;

  @Autowired
  DrivenTicker ticker;

  @Test
  @Order(1)
  void first() {
    Greetings.startsCleanAndAdmitsTheFullCount(weir, greeter);
  }

  @Test
  @Order(2)
  void second() {
    Greetings.startsCleanAndAdmitsTheFullCount(weir, greeter);
  }

  @Test
  @Order(3)
  void anOpenCircuitIsClosedAgainButRulesChangedAtRuntimeStay() {
    Greetings.startsCleanAndAdmitsTheFullCount(weir, greeter);
    // A breaker this test adds at runtime, opened by one failure: the next test finds it closed.
    DegradeRule breaker = DegradeRule.builder("fragile").strategy(DegradeStrategy.ERROR_COUNT).threshold(0)
        .minRequestAmount(1).build();
    weir.rules().replace("fragile", RuleSet.of(breaker));
    try (Entry entry = weir.entry("fragile")) {
      entry.recordError(new IllegalStateException("down"));
    }
    assertThat(weir.statistics("fragile").circuitState()).isEqualTo(CircuitState.OPEN);
  }

  @Test
  @Order(4)
  void theCircuitOpenedByTheTestBeforeIsClosed() {
    Greetings.startsCleanAndAdmitsTheFullCount(weir, greeter);
    if (weir.rules().rules("fragile").degrade().isEmpty()) {
      return; // run on its own: nothing was opened
    }
    assertThat(weir.statistics("fragile").circuitState()).isEqualTo(CircuitState.CLOSED);
    assertThat(weir.statistics("fragile").totalFailed()).isZero();
    weir.entry("fragile").close();
  }

  /** A nested class is reset too: it inherits the annotation (and the context) of its enclosing class. */
  @Nested
  @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
  class InANestedClass {

    @Test
    @Order(1)
    void first() {
      Greetings.startsCleanAndAdmitsTheFullCount(weir, greeter);
    }

    @Test
    @Order(2)
    void second() {
      Greetings.startsCleanAndAdmitsTheFullCount(weir, greeter);
    }
  }
}
