package dev.weir.spring.properties;

import dev.weir.rule.RuleViolation;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindMethod;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.boot.env.OriginTrackedMapPropertySource;

/**
 * Binds rules posted to the {@code weir} endpoint or read from a rule file onto the property
 * classes of {@code application.yml}, one rule at a time, with Spring Boot's {@link Binder}: the
 * same relaxed names, durations and enum values as at start, every field no rule has and every
 * value that does not convert reported as a {@link RuleViolation} named like
 * {@code flow[12].count}.
 *
 * <p>Why one rule at a time: Spring Boot's binder looks a property up in its source for each
 * field, and a source that is not immutable recomputes its names on every look-up (a
 * {@code MapConfigurationPropertySource} copies and compares all of them); binding a list also
 * scans the whole source once for each nested list it holds. Over one source holding every rule,
 * that is quadratic: 2,000 posted flow rules took 5 s, 4,000 hot-parameter rules of a file 2.5 s.
 * Here each rule gets an immutable source of its own, holding only its properties under its
 * indexed name, so that every look-up and scan is bounded by the size of one rule and binding N
 * rules costs N times one. Fields no rule has are found by one pass over that source after binding
 * ({@code UsedNames}), for the same reason.
 */
public final class RuleBinding {

  private RuleBinding() {
  }

  /**
   * Binds one rule.
   *
   * @param name the rule's name, a list and index such as {@code flow[12]} or {@code param-flow[3]}
   * @param properties the rule's properties, flattened, each key starting with the rule's list and
   *     index as written ({@code paramFlow[3].exceptions[0].value}), each value a scalar, perhaps
   *     an {@code OriginTrackedValue} that says where it was written
   * @param type the property class of the rule
   * @param naming how a property is named in a violation (as it was written, say)
   * @param violations where the problems of the rule are added
   * @return the rule bound, or null when it has problems
   */
  public static <T> @Nullable T bind(String name, Map<String, Object> properties, Class<T> type,
      Function<ConfigurationPropertyName, String> naming, List<RuleViolation> violations) {
    ConfigurationPropertyName root;
    try {
      root = ConfigurationPropertyName.of(name);
    } catch (RuntimeException invalid) {
      violations.add(new RuleViolation(name, "is not a rule's name: " + invalid.getMessage()));
      return null;
    }
    IterableConfigurationPropertySource source = (IterableConfigurationPropertySource) Objects.requireNonNull(
        ConfigurationPropertySource.from(new OriginTrackedMapPropertySource(name, properties, true)));
    UsedNames used = new UsedNames();
    T bound;
    try {
      bound = new Binder(source).bindOrCreate(root, Bindable.of(type).withBindMethod(BindMethod.JAVA_BEAN), used);
    } catch (BindException ex) {
      violations.addAll(BindFailures.violations(ex, naming));
      return null;
    } catch (RuntimeException ex) {
      violations.add(new RuleViolation(name, "cannot be read: " + ex.getMessage()));
      return null;
    }
    List<ConfigurationPropertyName> unused = source.stream().filter(property -> !used.names.contains(property))
        .sorted().toList();
    for (ConfigurationPropertyName property : unused) {
      violations.add(new RuleViolation(naming.apply(property), "no rule of this kind has this field"));
    }
    return unused.isEmpty() ? bound : null;
  }

  /**
   * Records the name of every property the binder used. What else the rule's source holds is a field
   * no rule of that kind has, found by one pass over the source afterwards: Spring Boot's
   * {@code NoUnboundElementsBindHandler} builds a filtered copy of the source for each such field,
   * quadratic in their number (a rule with 5,000 unknown fields took 8 s, 10,000 took 44 s).
   */
  private static final class UsedNames extends AbstractBindHandler {

    final Set<ConfigurationPropertyName> names = new HashSet<>();

    @Override
    public @Nullable Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
        Object result) {
      names.add(name);
      return super.onSuccess(name, target, context, result);
    }
  }
}
