package dev.weir.spring.properties;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Spelling}: what a misspelt name was meant to be. */
class SpellingTests {

  @Test
  void aSwapOfNeighboursIsOneEdit() {
    assertThat(Spelling.distance("degarde", "degrade")).isEqualTo(1);
    assertThat(Spelling.distance("flow", "flow")).isZero();
    assertThat(Spelling.distance("", "abc")).isEqualTo(3);
  }

  @Test
  void suggestsTheClosestNameIgnoringCase() {
    assertThat(Spelling.suggestion("CreateOrdr", List.of("createOrder", "payments")))
        .isEqualTo(" (did you mean 'createOrder'?)");
    assertThat(Spelling.closest("xyz", List.of("createOrder", "payments"))).isNull();
    assertThat(Spelling.suggestion("xyz", List.of("createOrder"))).isEmpty();
  }
}
