package dev.weir.test.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.FlowException;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;

/** Assertions the reset tests share. */
final class Greetings {

  private Greetings() {
  }

  /**
   * Asserts that {@code greet} starts clean, that the rule admits its full count (2) and refuses the
   * third call, and that the statistics count exactly those calls.
   */
  static void startsCleanAndAdmitsTheFullCount(Weir weir, GreetingApplication.Greeter greeter) {
    ResourceStatistics before = weir.statistics("greet");
    if (before != null) { // known once called, or given rules; either way nothing counted yet
      assertThat(before.totalPassed()).as("passed before the test").isZero();
      assertThat(before.totalBlocked()).as("blocked before the test").isZero();
      assertThat(before.passQps()).isZero();
    }
    assertThat(greeter.greet("a")).isEqualTo("hello a");
    assertThat(greeter.greet("b")).isEqualTo("hello b");
    assertThatThrownBy(() -> greeter.greet("c")).isInstanceOf(FlowException.class);
    ResourceStatistics after = weir.statistics("greet");
    assertThat(after.totalPassed()).isEqualTo(2);
    assertThat(after.totalBlocked()).isEqualTo(1);
  }
}
