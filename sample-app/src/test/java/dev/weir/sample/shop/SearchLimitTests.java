package dev.weir.sample.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.FlowException;
import dev.weir.test.AutoConfigureWeirTest;
import dev.weir.test.DrivenTicker;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** The example of docs/testing.md, "Testing with weir-test", shown there from the tags below. */
// tag::test[]
@SpringBootTest
@AutoConfigureWeirTest
class SearchLimitTests {

  @Autowired DrivenTicker ticker;
  @Autowired Catalog catalog;   // @RateLimited("searchProducts"), rule: count 2 per second

  @Test
  void thirdSearchInASecondIsRefused() {
    catalog.search("tea");
    catalog.search("tea");
    assertThatThrownBy(() -> catalog.search("tea")).isInstanceOf(FlowException.class);
    ticker.advance(Duration.ofSeconds(1));
    assertThat(catalog.search("tea")).isNotEmpty();
  }
}
// end::test[]
