package dev.weir.spring.keys;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The syntax tree of a key expression, as {@link KeyParser} reads it: what was written, where, and
 * how deep it nests ({@link #depth()}: one for a leaf, one more than its deepest part otherwise; a
 * parenthesis adds one). Positions are offsets into the expression, from 0.
 */
sealed interface Syntax {

  /** Where the node starts in the expression. */
  int start();

  /** Where it ends (exclusive). */
  int end();

  /** How deep it nests: 1 for a leaf. */
  int depth();

  /** {@code #name}. */
  record Name(String name, int start, int end) implements Syntax {
    @Override
    public int depth() {
      return 1;
    }
  }

  /** A quoted text, its quotes undone. */
  record Text(String value, int start, int end) implements Syntax {
    @Override
    public int depth() {
      return 1;
    }
  }

  /** A whole number from 0 to {@link Integer#MAX_VALUE}. */
  record Whole(int value, int start, int end) implements Syntax {
    @Override
    public int depth() {
      return 1;
    }
  }

  /** {@code null}. */
  record Null(int start, int end) implements Syntax {
    @Override
    public int depth() {
      return 1;
    }
  }

  /** {@code ( expression )}. */
  record Group(Syntax inner, int start, int end) implements Syntax {
    @Override
    public int depth() {
      return inner.depth() + 1;
    }
  }

  /** {@code a + b + ...}: text joined; null when a part is null. */
  record Concat(List<Syntax> parts, int start, int end, int depth) implements Syntax {
  }

  /** {@code a ?: b ?: ...}: the first part that is not null. */
  record Elvis(List<Syntax> alternatives, int start, int end, int depth) implements Syntax {
  }

  /**
   * {@code receiver.name}, {@code receiver?.name} or, with arguments (possibly none),
   * {@code receiver.name(...)}.
   *
   * @param at where the member's name starts
   * @param arguments null for the property form {@code .name}
   */
  record Member(Syntax receiver, String name, boolean nullSafe, @Nullable List<Syntax> arguments, int at,
      int start, int end, int depth) implements Syntax {
  }

  /** {@code receiver[key]}, the key a {@link Text} or a {@link Whole}. */
  record Index(Syntax receiver, Syntax key, int at, int start, int end, int depth) implements Syntax {
  }
}
