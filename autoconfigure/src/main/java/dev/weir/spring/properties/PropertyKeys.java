package dev.weir.spring.properties;

import dev.weir.rule.RuleViolation;
import java.beans.Introspector;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName.Form;
import org.springframework.boot.context.properties.source.ConfigurationPropertySource;
import org.springframework.boot.context.properties.source.IterableConfigurationPropertySource;
import org.springframework.core.MethodParameter;
import org.springframework.core.ResolvableType;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Finds the keys under a prefix that bind to nothing: {@code weir.flow[0].intervall}, {@code weir.flwo}.
 * The known keys are those of the bound class itself, found by walking its type as Spring Boot's
 * binder does (a JavaBean's properties are its {@code get}/{@code is}/{@code set} methods, a
 * record's its components), so that nothing has to be kept in step with the properties classes by
 * hand.
 *
 * <p>How a key is walked, one element of its name at a time from the bound class down:
 * <ul>
 * <li>at a bean, the element must name one of its properties, compared as Spring Boot's relaxed
 *     binding compares names: letters and digits only, ignoring case, so that {@code max-resources},
 *     {@code maxResources}, {@code max_resources} and {@code MAXRESOURCES} all name the same one;
 * <li>at a list or array, the element must be an index ({@code flow[0]});
 * <li>at a map, the element is a key, and any key is known ({@code weir.metrics.tags.region},
 *     {@code weir.web.routes[0].headers.X-Api-Key}); below a map of values, all the rest of the name
 *     is the key;
 * <li>at a value ({@code weir.enabled}), there is nothing further: {@code weir.enabled.foo} is unknown.
 * </ul>
 *
 * <p>Environment variables are read as Spring Boot reads them: {@code WEIR_FLOW_0_COUNT} is
 * {@code weir.flow[0].count}, and an underscore may also stand for a dash ({@code WEIR_MAX_RESOURCES}
 * binds {@code weir.max-resources}), so at a bean several elements may together name one property.
 * The environment holds variables of everything on the machine too (Kubernetes sets
 * {@code WEIR_SERVICE_HOST} for a service named {@code weir}), so a variable is judged only when its
 * first element after the prefix names a property or is one edit (a letter missing, added or
 * changed, or two swapped) from one ({@code WEIR_FLWO_0_COUNT}); any other ({@code WEIR_FOO}) is
 * not this class's, and is left alone.
 */
public final class PropertyKeys {

  /** The most unknown keys reported one by one; more are counted in one last violation. */
  public static final int MAX_REPORTED = 50;

  private final ConfigurationPropertyName prefix;
  private final ResolvableType root;
  private final Map<Class<?>, Map<String, Property>> properties = new HashMap<>();

  private PropertyKeys(String prefix, Class<?> type) {
    this.prefix = ConfigurationPropertyName.of(prefix);
    this.root = ResolvableType.forClass(type);
  }

  /**
   * Returns a violation for each key under {@code prefix} in {@code sources} that binds to no
   * property of {@code type}, named by its path up to the element that is unknown (once, however
   * many keys are below it), with the nearest known key; at most {@value #MAX_REPORTED}, then one
   * naming how many more there are. Sources that cannot list their keys are not looked at.
   *
   * @param sources the configuration, as Spring Boot's binder reads it
   * @param prefix the prefix {@code type} is bound at, such as {@code weir}
   * @param type the class bound there
   */
  public static List<RuleViolation> unknown(Iterable<ConfigurationPropertySource> sources, String prefix,
      Class<?> type) {
    PropertyKeys keys = new PropertyKeys(prefix, type);
    Map<String, RuleViolation> found = new LinkedHashMap<>();
    for (ConfigurationPropertySource source : sources) {
      if (!(source instanceof IterableConfigurationPropertySource iterable)) {
        continue;
      }
      boolean environment = source.getUnderlyingSource() instanceof SystemEnvironmentPropertySource;
      List<ConfigurationPropertyName> names = iterable.stream().filter(keys.prefix::isAncestorOf).sorted().toList();
      for (ConfigurationPropertyName name : names) {
        RuleViolation violation = keys.check(name, environment);
        if (violation != null) {
          found.putIfAbsent(violation.field(), violation);
        }
      }
    }
    List<RuleViolation> out = new ArrayList<>(found.values());
    if (out.size() > MAX_REPORTED) {
      int more = out.size() - MAX_REPORTED;
      out = new ArrayList<>(out.subList(0, MAX_REPORTED));
      out.add(new RuleViolation(prefix, "has " + more + " more unknown keys"));
    }
    return out;
  }

  /** Returns the violation of {@code name} if it binds to nothing, else null. */
  private @Nullable RuleViolation check(ConfigurationPropertyName name, boolean environment) {
    int first = prefix.getNumberOfElements();
    ResolvableType type = root;
    int i = first;
    while (i < name.getNumberOfElements()) {
      Class<?> resolved = type.resolve(Object.class);
      if (type.asMap() != ResolvableType.NONE) {
        ResolvableType value = type.asMap().getGeneric(1);
        if (!isBean(value.resolve(Object.class)) || i + 1 == name.getNumberOfElements()) {
          return null; // the rest of the name is the key
        }
        type = value;
        i++;
      } else if (resolved.isArray() || Collection.class.isAssignableFrom(resolved)) {
        if (!isIndex(name.getElement(i, Form.UNIFORM))) {
          return new RuleViolation(name.chop(i + 1).toString(), "unknown key: " + name.chop(i)
              + " is a list, its entries are " + name.chop(i) + "[0], " + name.chop(i) + "[1], ...");
        }
        type = resolved.isArray() ? type.getComponentType() : type.asCollection().getGeneric(0);
        i++;
      } else if (isBean(resolved)) {
        Map<String, Property> known = properties(resolved);
        Property property = known.get(name.getElement(i, Form.UNIFORM));
        int next = i + 1;
        // An environment variable's underscore may stand for a dash: WEIR_MAX_RESOURCES, weir.max.resources
        for (int j = i + 1; property == null && environment && j < name.getNumberOfElements(); j++) {
          property = known.get(joined(name, i, j));
          next = j + 1;
        }
        if (property == null) {
          return unknownProperty(name, i, known, environment, i == first);
        }
        type = property.type();
        i = next;
      } else {
        return new RuleViolation(name.chop(i + 1).toString(), "unknown key: " + name.chop(i)
            + " takes a value, not keys");
      }
    }
    return null;
  }

  /**
   * The violation of a name whose element {@code i} is no property of a bean with the {@code known}
   * ones, with the nearest of them. An environment variable is named whole (so that the failure
   * report finds it and says where it was set), and its elements from {@code i} on may together be
   * the misspelt key ({@code WEIR_FLOW_0_CONTROL_BEHAVIOUR}); one whose first element is more than
   * one edit from every property is not ours: null.
   */
  private static @Nullable RuleViolation unknownProperty(ConfigurationPropertyName name, int i,
      Map<String, Property> known, boolean environment, boolean first) {
    String nearest = null;
    int distance = Integer.MAX_VALUE;
    int last = environment ? name.getNumberOfElements() - 1 : i;
    for (int j = i; j <= last; j++) {
      String candidate = joined(name, i, j);
      String closest = Spelling.closest(candidate, known.keySet());
      if (closest != null && Spelling.distance(candidate, closest) < distance) {
        nearest = closest;
        distance = Spelling.distance(candidate, closest);
      }
    }
    if (environment && first && distance > 1) {
      return null; // WEIR_FOO, WEIR_SERVICE_HOST: not ours
    }
    String field = (environment ? name : name.chop(i + 1)).toString();
    if (nearest != null) {
      return new RuleViolation(field, "unknown key" + Spelling.didYouMean(known.get(nearest).name()));
    }
    Set<String> names = new TreeSet<>();
    known.values().forEach(property -> names.add(property.name()));
    return new RuleViolation(field, "unknown key; the keys of " + name.chop(i) + " are " + names);
  }

  private static String joined(ConfigurationPropertyName name, int from, int to) {
    StringBuilder out = new StringBuilder();
    for (int k = from; k <= to; k++) {
      out.append(name.getElement(k, Form.UNIFORM));
    }
    return out.toString();
  }

  private static boolean isIndex(String element) {
    return !element.isEmpty() && element.chars().allMatch(Character::isDigit);
  }

  /**
   * Whether the binder binds a value of this class property by property: not a value Spring
   * converts from text (a number, an enum, a {@code Duration}, a {@code Path}, ...), nor anything
   * else of the JDK's, nor {@code Object} (which takes anything).
   */
  private static boolean isBean(Class<?> type) {
    return !(BeanUtils.isSimpleValueType(type) || type.isArray() || type.getName().startsWith("java.")
        || type.getName().startsWith("javax."));
  }

  /** The properties the binder binds on {@code type}, by their name letters and digits only, lower case. */
  private Map<String, Property> properties(Class<?> type) {
    return properties.computeIfAbsent(type, PropertyKeys::findProperties);
  }

  private static Map<String, Property> findProperties(Class<?> type) {
    Map<String, Property> out = new LinkedHashMap<>();
    if (type.isRecord()) {
      for (RecordComponent component : type.getRecordComponents()) {
        add(out, component.getName(), ResolvableType.forMethodReturnType(component.getAccessor(), type));
      }
      return out;
    }
    // As Spring Boot's JavaBeanBinder: non-private, non-protected, non-static, non-abstract methods
    // named get*/is* without parameters or set* with one, of the class and its superclasses; a
    // setter's parameter gives the type, else the getter's result.
    Map<String, ResolvableType> found = new LinkedHashMap<>();
    Set<String> setters = new LinkedHashSet<>();
    for (Class<?> at = type; at != null && at != Object.class; at = at.getSuperclass()) {
      for (Method method : at.getDeclaredMethods()) {
        int modifiers = method.getModifiers();
        if (Modifier.isPrivate(modifiers) || Modifier.isProtected(modifiers) || Modifier.isStatic(modifiers)
            || Modifier.isAbstract(modifiers) || method.isBridge() || method.getName().indexOf('$') >= 0) {
          continue;
        }
        String name = method.getName();
        if (method.getParameterCount() == 1 && name.startsWith("set") && name.length() > 3) {
          String property = Introspector.decapitalize(name.substring(3));
          if (setters.add(property)) {
            found.put(property, ResolvableType.forMethodParameter(new MethodParameter(method, 0), ResolvableType.forClass(type)));
          }
        } else if (method.getParameterCount() == 0) {
          String accessor = name.startsWith("get") && name.length() > 3 ? name.substring(3)
              : name.startsWith("is") && name.length() > 2 ? name.substring(2) : null;
          if (accessor != null) {
            found.putIfAbsent(Introspector.decapitalize(accessor), ResolvableType.forMethodReturnType(method, type));
          }
        }
      }
    }
    found.forEach((name, propertyType) -> add(out, name, propertyType));
    return out;
  }

  private static void add(Map<String, Property> out, String javaName, ResolvableType type) {
    String dashed = dashed(javaName);
    out.putIfAbsent(dashed.replace("-", "").toLowerCase(Locale.ROOT), new Property(dashed, type));
  }

  /** {@code maxResources} as a key is written: {@code max-resources}. */
  private static String dashed(String javaName) {
    StringBuilder out = new StringBuilder();
    for (char c : javaName.toCharArray()) {
      if (Character.isUpperCase(c) && !out.isEmpty()) {
        out.append('-');
      }
      out.append(Character.toLowerCase(c));
    }
    return out.toString();
  }

  /** A property of a bean: its name as a key is written ({@code max-resources}) and its type. */
  private record Property(String name, ResolvableType type) {
  }
}
