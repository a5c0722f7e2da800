package dev.weir.spring.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.KeyExpressions.ParamKey;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** SpEL key expressions: names to positions, literals left alone, failures as null keys, compiled after warm-up. */
class SpelKeyExpressionsTests {

  record Order(String customerId, int lines) {
    public String getCustomerId() {
      return customerId;
    }
  }

  private final SpelKeyExpressions keys = new SpelKeyExpressions(
      resource -> resource.equals("place") ? List.of("order", "apiKey") : null, getClass().getClassLoader());

  @Test
  void argumentsByNamePositionAndAll() {
    Object[] args = {new Order("c-7", 3), "k-1"};
    assertThat(keys.compile("place", "#apiKey").keyOf(args)).isEqualTo("k-1");
    assertThat(keys.compile("place", "#order.customerId").keyOf(args)).isEqualTo("c-7");
    assertThat(keys.compile("place", "#p0.customerId + ':' + #a1").keyOf(args)).isEqualTo("c-7:k-1");
    assertThat(keys.compile("place", "#args.length").keyOf(args)).isEqualTo(2);
    assertThat(keys.compile("place", "'#apiKey is ''text'''").keyOf(args)).isEqualTo("#apiKey is 'text'");
    assertThat(keys.compile("place", "#p0['k']").keyOf(new Object[] {Map.of("k", "v"), null})).isEqualTo("v");
  }

  @Test
  void aFailingExpressionGivesANullKey() {
    ParamKey key = keys.compile("place", "#order.customerId");
    assertThat(key.keyOf(new Object[] {null, "k"})).isNull();
    assertThat(keys.compile("place", "#order?.customerId").keyOf(new Object[] {null, "k"})).isNull();
  }

  @Test
  void anUnknownResourceWaitsForItsNamesUntilSealed() {
    ParamKey deferred = keys.compile("later", "#whatever");
    assertThat(keys.compile("later", "#p0").keyOf(new Object[] {"x"})).isEqualTo("x");
    keys.seal();
    assertThatThrownBy(() -> keys.compile("later", "#whatever")).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("by position only");
    assertThatThrownBy(() -> deferred.keyOf(new Object[] {"x"})).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void codeIsRefused() {
    assertThatThrownBy(() -> keys.compile("place", "@someBean.key()")).hasMessageContaining("bean reference");
    assertThatThrownBy(() -> keys.compile("place", "#apiKey = 'x'")).hasMessageContaining("assignment");
    // reflection through instance methods is refused by the read-only context when evaluated: a null key
    assertThat(keys.compile("place", "#apiKey.getClass().forName('java.lang.Runtime')")
        .keyOf(new Object[] {null, "k"})).isNull();
  }

  @Test
  void afterItsFirstCallsTheExpressionRunsCompiled() {
    ParamKey key = keys.compile("place", "#apiKey.toUpperCase() + #p0['region']");
    Object[] args = {Map.of("region", "-eu"), "k"};
    for (int i = 0; i < 300; i++) {
      assertThat(key.keyOf(args)).isEqualTo("K-eu");
    }
    assertThat(key.toString()).endsWith("(compiled)");
    ParamKey plain = keys.compile("place", "#apiKey");
    for (int i = 0; i < 300; i++) {
      assertThat(plain.keyOf(args)).isEqualTo("k");
    }
    assertThat(plain.toString()).as("a bare argument").endsWith("(compiled)");
    ParamKey onAPrivateType = keys.compile("place", "#order.customerId");
    for (int i = 0; i < 300; i++) {
      assertThat(onAPrivateType.keyOf(new Object[] {new Order("c-9", 1), "k"})).isEqualTo("c-9");
    }
    assertThat(onAPrivateType.toString()).as("SpEL compiles calls on public types only").endsWith("(interpreted)");
  }
}
