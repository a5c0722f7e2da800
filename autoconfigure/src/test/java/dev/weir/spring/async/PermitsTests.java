package dev.weir.spring.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.FlowException;
import dev.weir.Weir;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** {@code @RateLimited(permits = n)}: a call weighs n permits of a flow rule (10 an hour here). */
@SpringBootTest(classes = AsyncTestApplication.class, properties = "spring.config.name=async-test")
class PermitsTests {

  @Autowired
  Weir weir;

  @Autowired
  WeighedService service;

  @BeforeEach
  void freshStatistics() {
    weir.reset();
  }

  @Test
  void eachCallTakesItsPermits() {
    assertThat(service.four()).isEqualTo("four");
    assertThat(service.four()).isEqualTo("four"); // 8 of 10 taken
    assertThatThrownBy(service::four).isInstanceOf(FlowException.class); // 12 > 10
    assertThat(service.twoPerSubscription().block(Duration.ofSeconds(5))).isEqualTo("two"); // 10 of 10
    assertThatThrownBy(() -> service.twoPerSubscription().block(Duration.ofSeconds(5)))
        .isInstanceOf(FlowException.class);
    // the statistics count permits, as the rules do
    assertThat(weir.statistics("permits.qps").totalPassed()).isEqualTo(10);
    assertThat(weir.statistics("permits.qps").totalBlocked()).isEqualTo(6);
  }
}
