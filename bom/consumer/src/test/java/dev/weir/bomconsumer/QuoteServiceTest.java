package dev.weir.bomconsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.test.DrivenTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** weir-test, versioned by the BOM, drives an engine: what a user's first test does. */
class QuoteServiceTest {

  @Test
  void aDrivenTickerOpensTheNextSecond() {
    DrivenTicker ticker = new DrivenTicker();
    Weir weir = Weir.builder().ticker(ticker).sleeper(ticker).rules(RuleSet.of(FlowRule.qps("quote", 1))).build();
    assertEquals(true, weir.tryEntry("quote", dev.weir.EntryType.OUT, 1) != null);
    assertEquals(null, weir.tryEntry("quote", dev.weir.EntryType.OUT, 1));
    ticker.advance(Duration.ofSeconds(1));
    assertEquals(true, weir.tryEntry("quote", dev.weir.EntryType.OUT, 1) != null);
  }
}
