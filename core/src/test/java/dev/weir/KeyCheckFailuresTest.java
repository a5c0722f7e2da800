package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.rule.RuleViolation;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Whatever a key compiler throws while a rule is checked is a violation naming the key's path, so
 * that no write answers 500 and no watcher thread dies: a StackOverflowError (a parser that
 * recursed too deep), a NoClassDefFoundError (an argument type's accessors), a runtime exception.
 * Only a VirtualMachineError other than StackOverflowError (the JVM in trouble) is thrown on.
 */
class KeyCheckFailuresTest {

  private static List<RuleViolation> check(Throwable thrown) {
    KeyExpressions throwing = (resource, expression) -> {
      if (thrown instanceof Error error) {
        throw error;
      }
      throw (RuntimeException) thrown;
    };
    try (Weir weir = Weir.builder().keyExpressions(throwing).build()) {
      return weir.rules().validate(RuleSet.empty().withParamFlow(List.of(
          ParamFlowRule.builder("r").key("#p0").count(1).build())));
    }
  }

  @Test
  void whatACompilerThrowsIsAViolationNamingTheKey() {
    assertThat(check(new StackOverflowError())).singleElement().satisfies(violation -> {
      assertThat(violation.field()).isEqualTo("param-flow[0].key");
      assertThat(violation.message()).isEqualTo("could not be checked: java.lang.StackOverflowError");
    });
    assertThat(check(new NoClassDefFoundError("example/Gone"))).singleElement()
        .satisfies(violation -> assertThat(violation.message()).contains("NoClassDefFoundError: example/Gone"));
    assertThat(check(new IllegalStateException("broken"))).singleElement()
        .satisfies(violation -> assertThat(violation.message()).contains("IllegalStateException: broken"));
    assertThat(check(new IllegalArgumentException("is not a key"))).singleElement()
        .satisfies(violation -> assertThat(violation.message()).isEqualTo("is not a key"));
  }

  @Test
  void aJvmInTroubleIsNotARuleProblem() {
    OutOfMemoryError outOfMemory = new OutOfMemoryError("test");
    assertThatThrownBy(() -> check(outOfMemory)).isSameAs(outOfMemory);
  }
}
