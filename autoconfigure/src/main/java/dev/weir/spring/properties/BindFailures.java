package dev.weir.spring.properties;

import dev.weir.rule.RuleViolation;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

/**
 * Turns a failed binding of rules onto the property classes into violations, one per field: a
 * field no rule of that kind has ({@code no rule of this kind has this field}), or a value that
 * cannot be converted ({@code must be a duration such as 500ms, ..., was 'soon'}). The rules
 * posted to the {@code weir} endpoint and those of rule files are bound, and reported, alike.
 */
public final class BindFailures {

  private BindFailures() {
  }

  /**
   * Returns the problems of a failed binding.
   *
   * @param ex the failure, of a binding with a {@code NoUnboundElementsBindHandler}
   * @param naming how a property is named in the violation (as it was written, say)
   */
  public static List<RuleViolation> violations(BindException ex, Function<ConfigurationPropertyName, String> naming) {
    if (ex.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
      return unbound.getUnboundProperties().stream().sorted()
          .map(property -> new RuleViolation(naming.apply(property.getName()), "no rule of this kind has this field"))
          .toList();
    }
    ConfigurationProperty property = ex.getProperty();
    String field = naming.apply(property != null ? property.getName() : ex.getName());
    Object value = property != null ? property.getValue() : null;
    Class<?> type = ex.getTarget().getType().resolve(Object.class);
    return List.of(new RuleViolation(field, "must be " + expected(type) + ", was '" + value + "'"));
  }

  /** Returns what a value of {@code type} is written as: {@code one of qps, threads}, {@code a whole number}, ... */
  public static String expected(Class<?> type) {
    if (type.isEnum()) {
      return "one of " + Arrays.stream(type.getEnumConstants())
          .map(constant -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
          .collect(Collectors.joining(", "));
    }
    if (type == Duration.class) {
      return "a duration such as 500ms, 10s, 1m, 1h or PT1H";
    }
    if (type == boolean.class || type == Boolean.class) {
      return "true or false";
    }
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
      return "a whole number";
    }
    if (Number.class.isAssignableFrom(type) || type.isPrimitive()) {
      return "a number";
    }
    return "a value of type " + type.getSimpleName();
  }
}
