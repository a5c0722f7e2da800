package dev.weir.spring.keys;

import java.util.function.UnaryOperator;

/**
 * Rewrites the variable references ({@code #name}) of a SpEL expression, leaving string literals
 * alone: a quoted {@code '#a'} or {@code "#a"} (with doubled quotes inside) is text, not a
 * reference.
 */
final class Names {

  private Names() {
  }

  /** Returns {@code expression} with each {@code #name} outside literals replaced by {@code replace(name)}. */
  static String toPositions(String expression, UnaryOperator<String> replace) {
    StringBuilder out = new StringBuilder(expression.length() + 16);
    int i = 0;
    int length = expression.length();
    while (i < length) {
      char c = expression.charAt(i);
      if (c == '\'' || c == '"') {
        int end = i + 1;
        while (end < length) {
          if (expression.charAt(end) == c) {
            if (end + 1 < length && expression.charAt(end + 1) == c) {
              end += 2; // a doubled quote stands for one
              continue;
            }
            break;
          }
          end++;
        }
        end = Math.min(end + 1, length);
        out.append(expression, i, end);
        i = end;
      } else if (c == '#' && i + 1 < length && Character.isJavaIdentifierStart(expression.charAt(i + 1))) {
        int end = i + 2;
        while (end < length && Character.isJavaIdentifierPart(expression.charAt(end))) {
          end++;
        }
        out.append(replace.apply(expression.substring(i + 1, end)));
        i = end;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }
}
