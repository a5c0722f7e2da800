package dev.weir.spring.docs.examples.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.spring.test.ManualTicker;
import org.junit.jupiter.api.Test;

/** The handle of the engine page's example decides as calls by name do, and follows a rule replaced after it was made. */
class CheckoutTests {

  @Test
  void theHandleRefusesOverTheLimitAndFollowsARuleReplacedLater() {
    ManualTicker ticker = new ManualTicker();
    try (Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.qps("createOrder", 1))).build()) {
      Checkout checkout = new Checkout(weir, request -> "placed " + request);
      assertThat(checkout.place("a")).isEqualTo("placed a");
      assertThat(checkout.place("b")).startsWith("429, retry after");
      assertThat(checkout.placeUnlessBusy("c")).isNull();
      weir.rules().replace("createOrder", RuleSet.of(FlowRule.qps("createOrder", 3)));
      assertThat(checkout.placeUnlessBusy("d")).as("under the rule replaced after the handle was made")
          .isEqualTo("placed d");
      assertThat(weir.statistics("createOrder").totalPassed()).isEqualTo(2);
      assertThat(weir.statistics("createOrder").totalBlocked()).isEqualTo(2);
    }
  }
}
