package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The engine page's {@link OrderDesk}: its rules hold, a refusal is answered, a failure is counted. */
class OrderDeskTest {

  @Test
  void theHundredAndFirstOrderInASecondIsAnsweredAndFailuresAreCounted() {
    FakeTicker ticker = new FakeTicker();
    OrderDesk desk = new OrderDesk(ticker, request -> {
      if (request.equals("bad")) {
        throw new IllegalStateException("bad order");
      }
      return "placed " + request;
    });
    try (Weir weir = desk.weir()) {
      for (int i = 0; i < 99; i++) {
        assertThat(desk.place("o-" + i)).isEqualTo("placed o-" + i);
      }
      assertThatThrownBy(() -> desk.place("bad")).hasMessage("bad order");
      assertThat(desk.place("o-100")).startsWith("429, retry after ");
      assertThat(weir.statistics("createOrder").totalFailed()).isEqualTo(1);
      ticker.advance(Duration.ofSeconds(1));
      assertThat(desk.place("o-101")).isEqualTo("placed o-101");
    }
  }
}
