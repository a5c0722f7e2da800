package dev.weir.api;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * One line per element of a set of classes' API, sorted: each public type (its kind, modifiers,
 * supertypes) and each of its public members, and protected members of types that can be extended
 * (generic signatures, throws clauses, annotation defaults, constants' values). A type is API when it
 * is public and so is every type enclosing it.
 */
final class ApiSignatures {

  private ApiSignatures() {
  }

  static List<String> of(List<String> classNames) throws ClassNotFoundException {
    TreeSet<String> lines = new TreeSet<>();
    for (String name : classNames) {
      Class<?> type = Class.forName(name, false, ApiSignatures.class.getClassLoader());
      if (!isApi(type)) {
        continue;
      }
      lines.add(type(type));
      boolean extendable = !Modifier.isFinal(type.getModifiers()) && !type.isEnum() && !type.isRecord()
          && !type.isSealed();
      for (Constructor<?> constructor : type.getDeclaredConstructors()) {
        if (visible(constructor, extendable) && !constructor.isSynthetic()) {
          lines.add(type.getName() + " " + constructor.toGenericString());
        }
      }
      for (Method method : type.getDeclaredMethods()) {
        if (visible(method, extendable) && !method.isSynthetic() && !method.isBridge()) {
          Object defaultValue = method.getDefaultValue();
          lines.add(type.getName() + " " + method.toGenericString()
              + (defaultValue == null ? "" : " default " + show(defaultValue)));
        }
      }
      for (Field field : type.getDeclaredFields()) {
        if (visible(field, extendable) && !field.isSynthetic()) {
          lines.add(type.getName() + " " + field.toGenericString() + ApiBaselineTest.constant(field));
        }
      }
    }
    return List.copyOf(lines);
  }

  private static boolean isApi(Class<?> type) {
    for (Class<?> t = type; t != null; t = t.getEnclosingClass()) {
      if (!Modifier.isPublic(t.getModifiers()) || t.isAnonymousClass() || t.isLocalClass()) {
        return false;
      }
    }
    return true;
  }

  private static boolean visible(Member member, boolean extendable) {
    int modifiers = member.getModifiers();
    return Modifier.isPublic(modifiers) || (extendable && Modifier.isProtected(modifiers));
  }

  private static String type(Class<?> type) {
    String kind = type.isAnnotation() ? "@interface" : type.isInterface() ? "interface" : type.isEnum() ? "enum"
        : type.isRecord() ? "record" : "class";
    int modifiers = type.getModifiers() & ~(Modifier.INTERFACE);
    if (type.isInterface()) {
      modifiers &= ~Modifier.ABSTRACT;
    }
    StringBuilder line = new StringBuilder(type.getName()).append(" type ").append(Modifier.toString(modifiers))
        .append(' ').append(kind);
    Type superclass = type.getGenericSuperclass();
    if (superclass != null && superclass != Object.class && !type.isEnum() && !type.isRecord()) {
      line.append(" extends ").append(superclass.getTypeName());
    }
    Type[] interfaces = type.getGenericInterfaces();
    if (interfaces.length > 0) {
      line.append(type.isInterface() ? " extends " : " implements ")
          .append(Arrays.stream(interfaces).map(Type::getTypeName).sorted().collect(Collectors.joining(", ")));
    }
    if (type.isSealed()) {
      line.append(" permits ").append(Arrays.stream(type.getPermittedSubclasses()).map(Class::getName).sorted()
          .collect(Collectors.joining(", ")));
    }
    return line.toString();
  }

  private static String show(Object value) {
    if (value instanceof Object[] array) {
      return Arrays.stream(array).map(ApiSignatures::show).collect(Collectors.joining(", ", "{", "}"));
    }
    if (value instanceof Class<?> type) {
      return type.getName() + ".class";
    }
    if (value.getClass().isArray()) {
      return Arrays.deepToString(new Object[] {value});
    }
    return value instanceof String text ? '"' + text + '"' : String.valueOf(value);
  }
}
