package dev.weir.api;

import java.beans.BeanInfo;
import java.beans.IntrospectionException;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * One line per {@code weir.*} property, sorted: its name as written in {@code application.yml}
 * ({@code []} for an element of a list, {@code *} for a map's key), its type and its default. Walked
 * from the properties classes the application binds, so that the list is what binds, rules' fields
 * inside lists included (which the configuration metadata cannot list).
 */
final class PropertySignatures {

  private PropertySignatures() {
  }

  static List<String> of(String prefix, Class<?> root) throws ReflectiveOperationException, IntrospectionException {
    TreeSet<String> lines = new TreeSet<>();
    walk(prefix, root, root.getDeclaredConstructor().newInstance(), lines, 0);
    return List.copyOf(lines);
  }

  private static void walk(String prefix, Class<?> type, Object defaults, TreeSet<String> lines, int depth)
      throws ReflectiveOperationException, IntrospectionException {
    if (depth > 8) {
      throw new IllegalStateException("properties nested deeper than 8 at " + prefix);
    }
    BeanInfo info = Introspector.getBeanInfo(type, Object.class);
    for (PropertyDescriptor property : info.getPropertyDescriptors()) {
      Method getter = property.getReadMethod();
      if (getter == null) {
        continue;
      }
      String name = prefix + "." + kebab(property.getName());
      Type generic = getter.getGenericReturnType();
      Class<?> raw = getter.getReturnType();
      Object value = getter.invoke(defaults);
      if (List.class.isAssignableFrom(raw)) {
        Class<?> element = argument(generic, 0);
        if (ours(element)) {
          walk(name + "[]", element, element.getDeclaredConstructor().newInstance(), lines, depth + 1);
        } else {
          lines.add(name + "[] : " + element.getName() + defaultOf(value));
        }
      } else if (Map.class.isAssignableFrom(raw)) {
        lines.add(name + ".* : " + argument(generic, 1).getName() + defaultOf(value));
      } else if (ours(raw) && !raw.isEnum() && property.getWriteMethod() == null) {
        walk(name, raw, value, lines, depth + 1);
      } else if (property.getWriteMethod() != null) {
        lines.add(name + " : " + raw.getName() + defaultOf(value));
      }
    }
  }

  private static boolean ours(Class<?> type) {
    return type.getName().startsWith("dev.weir.");
  }

  private static Class<?> argument(Type type, int index) {
    if (type instanceof ParameterizedType parameterized
        && parameterized.getActualTypeArguments()[index] instanceof Class<?> argument) {
      return argument;
    }
    return Object.class;
  }

  private static String defaultOf(Object value) {
    if (value == null || (value instanceof java.util.Collection<?> c && c.isEmpty())
        || (value instanceof Map<?, ?> m && m.isEmpty())) {
      return "";
    }
    return " = " + value;
  }

  private static String kebab(String camel) {
    StringBuilder out = new StringBuilder();
    for (char c : camel.toCharArray()) {
      if (Character.isUpperCase(c)) {
        out.append('-').append(Character.toLowerCase(c));
      } else {
        out.append(c);
      }
    }
    return out.toString().toLowerCase(Locale.ROOT);
  }
}
