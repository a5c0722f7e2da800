package dev.weir.spring.keys;

import dev.weir.spring.web.RequestView;
import java.lang.reflect.Array;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A node of a compiled key expression: computes its value from a call's arguments, or throws
 * {@link KeyFailure}. Nodes are immutable but for {@link MemberNode}'s cache, and each is evaluated
 * at most once per call, so evaluation visits each node of the tree once.
 */
abstract class Node {

  /** The expression's text, for the reasons of failures. */
  final String source;
  final int start;
  final int end;

  Node(String source, int start, int end) {
    this.source = source;
    this.start = start;
    this.end = end;
  }

  abstract @Nullable Object evaluate(Object[] args);

  /** The node's text in the expression, to name it in a reason. */
  final String text() {
    return source.substring(start, end);
  }

  /** A quoted text or a number: the same object on every call. */
  static final class Constant extends Node {
    private final @Nullable Object value;

    Constant(@Nullable Object value, String source, int start, int end) {
      super(source, start, end);
      this.value = value;
    }

    @Override
    @Nullable Object evaluate(Object[] args) {
      return value;
    }
  }

  /** An argument by position: one array read. */
  static final class Argument extends Node {
    private final int index;

    Argument(int index, String source, int start, int end) {
      super(source, start, end);
      this.index = index;
    }

    @Override
    @Nullable Object evaluate(Object[] args) {
      if (index >= args.length) {
        throw new KeyFailure(text() + " is argument " + index + ", and the call has " + args.length);
      }
      return args[index];
    }
  }

  /** {@code #args}: the call's argument array itself. */
  static final class AllArguments extends Node {
    /** How many of the values are the call's arguments (a cost expression's end with the result); -1: all. */
    private final int count;

    AllArguments(String source, int start, int end) {
      this(source, start, end, -1);
    }

    AllArguments(String source, int start, int end, int count) {
      super(source, start, end);
      this.count = count;
    }

    @Override
    Object evaluate(Object[] args) {
      return count < 0 || args.length <= count ? args : java.util.Arrays.copyOf(args, count);
    }
  }

  /** {@code a ?: b ?: ...}: the first alternative that is not null. */
  static final class Elvis extends Node {
    private final Node[] alternatives;

    Elvis(List<Node> alternatives, String source, int start, int end) {
      super(source, start, end);
      this.alternatives = alternatives.toArray(new Node[0]);
    }

    @Override
    @Nullable Object evaluate(Object[] args) {
      Object value = null;
      for (Node alternative : alternatives) {
        value = alternative.evaluate(args);
        if (value != null) {
          return value;
        }
      }
      return value;
    }
  }

  /**
   * {@code a + b + ...}: the parts' text joined, null when a part is null. A part is a String, a
   * boxed primitive, an enum constant (its name), a UUID, or an object of the application's (its
   * {@code toString()}); anything else (a platform or framework object, an array, a collection) fails.
   */
  static final class Concat extends Node {
    private final Node[] parts;

    Concat(List<Node> parts, String source, int start, int end) {
      super(source, start, end);
      this.parts = parts.toArray(new Node[0]);
    }

    @Override
    @Nullable Object evaluate(Object[] args) {
      String[] texts = new String[parts.length];
      long length = 0;
      for (int i = 0; i < parts.length; i++) {
        Object value = parts[i].evaluate(args);
        if (value == null) {
          return null;
        }
        texts[i] = text(value, parts[i]);
        length += texts[i].length();
      }
      if (length > Integer.MAX_VALUE - 16) {
        throw new KeyFailure(text() + " would be " + length + " characters long");
      }
      StringBuilder joined = new StringBuilder((int) length);
      for (String text : texts) {
        joined.append(text);
      }
      return joined.toString();
    }

    private static String text(Object value, Node part) {
      if (value instanceof String text) {
        return text;
      }
      if (value instanceof Enum<?> constant) {
        return constant.name();
      }
      if (isJoinableValue(value.getClass()) || !Accessors.isPlatform(value.getClass())
          && !(value instanceof RequestView)) {
        return String.valueOf(value);
      }
      throw new KeyFailure(part.text() + " is a " + value.getClass().getName() + ", which + does not join (it joins"
          + " text, numbers, booleans, characters, enum constants, UUIDs and the application's objects)");
    }
  }

  /** Whether objects of {@code type} join by their {@code toString()}: boxed primitives and UUIDs. */
  static boolean isJoinableValue(Class<?> type) {
    return type == Integer.class || type == Long.class || type == Short.class || type == Byte.class
        || type == Double.class || type == Float.class || type == Boolean.class || type == Character.class
        || type == UUID.class;
  }

  /**
   * {@code receiver[key]}: an element of an array or a {@code List} by a whole number, or a
   * {@code Map}'s value by a text or a whole number (the map's {@code get}).
   */
  static final class Index extends Node {
    private final Node receiver;
    private final Object key;

    Index(Node receiver, Object key, String source, int start, int end) {
      super(source, start, end);
      this.receiver = receiver;
      this.key = key;
    }

    @Override
    @Nullable Object evaluate(Object[] args) {
      Object value = receiver.evaluate(args);
      if (value == null) {
        throw new KeyFailure(receiver.text() + " is null, so " + text() + " has no value");
      }
      if (value instanceof Map<?, ?> map) {
        return map.get(key);
      }
      if (key instanceof Integer index) {
        if (value instanceof Object[] array) {
          return inRange(index, array.length) ? array[index] : outOfRange(index, array.length);
        }
        if (value.getClass().isArray()) {
          int length = Array.getLength(value);
          return inRange(index, length) ? Array.get(value, index) : outOfRange(index, length);
        }
        if (value instanceof List<?> list) {
          int size = list.size();
          return inRange(index, size) ? list.get(index) : outOfRange(index, size);
        }
      } else if (value instanceof List<?> || value.getClass().isArray()) {
        throw new KeyFailure(text() + ": a list or an array is indexed by a whole number, not a text");
      }
      throw new KeyFailure(receiver.text() + " is a " + value.getClass().getName() + ": [...] applies to arrays,"
          + " lists and maps only");
    }

    private static boolean inRange(int index, int size) {
      return index < size;
    }

    private Object outOfRange(int index, int size) {
      throw new KeyFailure(text() + ": index " + index + " is past the " + size + " elements of "
          + receiver.text());
    }
  }
}
