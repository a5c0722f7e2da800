package dev.weir.spring.docs.examples.handlers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The handler page's {@link Inventory}: each handler answers what the page says it answers. */
class InventoryTests {

  private final AtomicBoolean warehouseDown = new AtomicBoolean();
  private final AtomicInteger warehouseCalls = new AtomicInteger();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class))
      .withBean(Inventory.class, () -> new Inventory(sku -> {
        warehouseCalls.incrementAndGet();
        if (warehouseDown.get()) {
          throw new IllegalStateException("warehouse down");
        }
        return 7;
      }));

  @Test
  void failuresGetTheLastKnownLevelAnOpenCircuitGetsUnknownAndABadSkuIsRethrown() {
    runner.withPropertyValues("weir.degrade[0].resource=stockLevel", "weir.degrade[0].strategy=error-count",
        "weir.degrade[0].threshold=1", "weir.degrade[0].min-request-amount=1").run(context -> {
          Inventory inventory = context.getBean(Inventory.class);
          assertThatThrownBy(() -> inventory.stockLevel(" ")).as("ignored: rethrown, not counted")
              .isInstanceOf(IllegalArgumentException.class);
          assertThatThrownBy(() -> inventory.stockLevel(" ")).isInstanceOf(IllegalArgumentException.class);
          assertThat(inventory.stockLevel("tea")).isEqualTo(7);
          warehouseDown.set(true);
          assertThat(inventory.stockLevel("tea")).as("a failure: the fallback's last known level").isEqualTo(7);
          assertThat(inventory.stockLevel("mug")).as("never seen").isEqualTo(Inventory.StockAnswers.UNKNOWN);
          int calls = warehouseCalls.get();
          assertThat(inventory.stockLevel("tea")).as("open: the blockHandler").isEqualTo(Inventory.StockAnswers.UNKNOWN);
          assertThat(warehouseCalls).as("an open circuit does not call the warehouse").hasValue(calls);
        });
  }

  @Test
  void aFlowRefusalGoesToTheFallbackAndTheStaticHandlerAnswersForReserve() {
    runner.withPropertyValues("weir.flow[0].resource=stockLevel", "weir.flow[0].count=0",
        "weir.flow[1].resource=reserve", "weir.flow[1].count=0").run(context -> {
          Inventory inventory = context.getBean(Inventory.class);
          assertThat(inventory.stockLevel("tea")).as("a flow refusal is no DegradeException: the fallback")
              .isEqualTo(Inventory.StockAnswers.UNKNOWN);
          assertThat(warehouseCalls).hasValue(0);
          assertThat(inventory.reserve("tea", 2)).startsWith("busy, retry in ");
        });
  }
}
