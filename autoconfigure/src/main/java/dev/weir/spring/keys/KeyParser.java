package dev.weir.spring.keys;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads a key expression into its {@link Syntax} tree, or refuses it with the reason and the
 * position ({@link IllegalArgumentException}). The grammar is {@link KeyLanguage}'s.
 *
 * <p>Bounds, checked before and while reading, so that no input can make the parser work long or
 * deep: an expression over {@link #MAX_LENGTH} characters is refused before it is looked at; every
 * node's depth plus the parentheses and argument lists around it is at most {@link #MAX_DEPTH},
 * refused as soon as it is exceeded. The parser recurses only into a parenthesis or an argument
 * list, each of which counts against that depth, so its recursion is at most
 * {@code MAX_DEPTH} levels of five calls each: no input can overflow the stack. Every character is
 * read once (a quoted text's included), so reading is linear in the expression's length.
 */
final class KeyParser {

  /** The longest expression read, in characters. */
  static final int MAX_LENGTH = 1000;

  /** How deep an expression may nest; see the class comment. */
  static final int MAX_DEPTH = 32;

  private final String source;
  private int at;

  private KeyParser(String source) {
    this.source = source;
  }

  /**
   * Reads {@code source}.
   *
   * @throws IllegalArgumentException with the reason and position when it is not a key expression
   *     or exceeds a bound
   */
  static Syntax parse(String source) {
    if (source.length() > MAX_LENGTH) {
      throw new IllegalArgumentException("is " + source.length() + " characters long; a key expression has at most "
          + MAX_LENGTH);
    }
    KeyParser parser = new KeyParser(source);
    parser.skipSpace();
    if (parser.at == source.length()) {
      throw new IllegalArgumentException("is empty");
    }
    Syntax expression = parser.expression(0);
    parser.skipSpace();
    if (parser.at < source.length()) {
      throw parser.unexpected("after a complete expression");
    }
    return expression;
  }

  /** {@code alternative := concat ( '?:' concat )*}. */
  private Syntax expression(int nesting) {
    skipSpace();
    int start = at;
    Syntax first = concat(nesting);
    skipSpace();
    if (!lookingAt("?:")) {
      return first;
    }
    List<Syntax> alternatives = new ArrayList<>();
    alternatives.add(first);
    int depth = first.depth();
    while (lookingAt("?:")) {
      at += 2;
      Syntax next = concat(nesting);
      alternatives.add(next);
      depth = Math.max(depth, next.depth());
      skipSpace();
    }
    return checked(new Syntax.Elvis(List.copyOf(alternatives), start, at, depth + 1), nesting);
  }

  /** {@code concat := postfix ( '+' postfix )*}. */
  private Syntax concat(int nesting) {
    skipSpace();
    int start = at;
    Syntax first = postfix(nesting);
    skipSpace();
    if (!lookingAt("+")) {
      return first;
    }
    List<Syntax> parts = new ArrayList<>();
    parts.add(first);
    int depth = first.depth();
    while (lookingAt("+")) {
      at++;
      Syntax next = postfix(nesting);
      parts.add(next);
      depth = Math.max(depth, next.depth());
      skipSpace();
    }
    return checked(new Syntax.Concat(List.copyOf(parts), start, at, depth + 1), nesting);
  }

  /** {@code postfix := primary ( ('.' | '?.') member | '[' index ']' )*}, read in a loop, not recursively. */
  private Syntax postfix(int nesting) {
    skipSpace();
    int start = at;
    Syntax node = primary(nesting);
    while (true) {
      skipSpace();
      if (lookingAt(".") || lookingAt("?.")) {
        boolean nullSafe = source.charAt(at) == '?';
        at += nullSafe ? 2 : 1;
        skipSpace();
        int nameAt = at;
        String name = identifier();
        if (name == null) {
          throw unexpected("where a member's name was expected after '" + (nullSafe ? "?." : ".") + "'");
        }
        List<Syntax> arguments = null;
        int depth = node.depth();
        skipSpace();
        if (lookingAt("(")) {
          arguments = arguments(nesting);
          for (Syntax argument : arguments) {
            depth = Math.max(depth, argument.depth());
          }
        }
        node = checked(new Syntax.Member(node, name, nullSafe, arguments, nameAt, start, at, depth + 1), nesting);
      } else if (lookingAt("[")) {
        int indexAt = at;
        at++;
        skipSpace();
        Syntax key = literal();
        if (!(key instanceof Syntax.Text) && !(key instanceof Syntax.Whole)) {
          throw unexpected("where an index was expected: a quoted text (a map's key) or a whole number");
        }
        skipSpace();
        expect("]", "to close the index opened at position " + indexAt);
        node = checked(new Syntax.Index(node, key, indexAt, start, at, node.depth() + 1), nesting);
      } else {
        return node;
      }
    }
  }

  /** {@code '(' [ expression ( ',' expression )* ] ')'}, at {@code at}; the list counts as a level. */
  private List<Syntax> arguments(int nesting) {
    int open = at;
    enter(nesting + 1, open);
    at++;
    List<Syntax> arguments = new ArrayList<>();
    skipSpace();
    if (lookingAt(")")) {
      at++;
      return List.of();
    }
    while (true) {
      arguments.add(expression(nesting + 1));
      skipSpace();
      if (lookingAt(",")) {
        at++;
      } else {
        expect(")", "to close the arguments opened at position " + open);
        return List.copyOf(arguments);
      }
    }
  }

  /** {@code primary := '#' identifier | literal | 'null' | '(' expression ')'}. */
  private Syntax primary(int nesting) {
    skipSpace();
    if (at >= source.length()) {
      throw new IllegalArgumentException("ends where a value was expected (at position " + at + ")");
    }
    int start = at;
    char c = source.charAt(at);
    if (c == '#') {
      at++;
      String name = identifier();
      if (name == null) {
        throw unexpected("after '#', where an argument's name was expected (#apiKey, #p0, #args)");
      }
      return new Syntax.Name(name, start, at);
    }
    if (c == '(') {
      enter(nesting + 1, start);
      at++;
      Syntax inner = expression(nesting + 1);
      skipSpace();
      expect(")", "to close the parenthesis opened at position " + start);
      return checked(new Syntax.Group(inner, start, at), nesting);
    }
    if (c == '\'' || c == '"' || isDigit(c)) {
      return literal();
    }
    String word = identifier();
    if ("null".equals(word)) {
      return new Syntax.Null(start, at);
    }
    at = start;
    if (word != null) {
      throw new IllegalArgumentException("'" + word + "' at position " + start + " is not a value: an argument is"
          + " named with # (#" + word + "), a text is quoted ('" + word + "')" + refusedWord(word));
    }
    throw unexpected("where a value was expected (#name, 'text', a number, null or a parenthesis)");
  }

  /** What the word would have been in SpEL, which the key language does not have. */
  private static String refusedWord(String word) {
    return switch (word) {
      case "T" -> "; type references T(...) are not part of the key language";
      case "new" -> "; constructors are not part of the key language";
      case "true", "false" -> "; the key language has no booleans";
      default -> "";
    };
  }

  /** A quoted text or a whole number, at {@code at}; null when there is neither. */
  private @Nullable Syntax literal() {
    if (at >= source.length()) {
      return null;
    }
    int start = at;
    char c = source.charAt(at);
    if (c == '\'' || c == '"') {
      StringBuilder text = new StringBuilder();
      at++;
      while (true) {
        if (at >= source.length()) {
          throw new IllegalArgumentException("the text opened at position " + start + " is not closed (write "
              + c + c + " for a " + c + " inside it)");
        }
        char next = source.charAt(at++);
        if (next == c) {
          if (at < source.length() && source.charAt(at) == c) {
            text.append(c); // a doubled quote stands for one
            at++;
            continue;
          }
          return new Syntax.Text(text.toString(), start, at);
        }
        text.append(next);
      }
    }
    if (isDigit(c)) {
      long value = 0;
      while (at < source.length() && isDigit(source.charAt(at))) {
        value = value * 10 + (source.charAt(at) - '0');
        at++;
        if (value > Integer.MAX_VALUE) {
          throw new IllegalArgumentException("the number at position " + start + " is larger than "
              + Integer.MAX_VALUE);
        }
      }
      if (at < source.length() && (source.charAt(at) == '.' && at + 1 < source.length()
          && isDigit(source.charAt(at + 1)) || Character.isLetter(source.charAt(at)))) {
        throw new IllegalArgumentException("the number at position " + start + " is not a whole number from 0 to "
            + Integer.MAX_VALUE);
      }
      return new Syntax.Whole((int) value, start, at);
    }
    return null;
  }

  /** A Java identifier at {@code at} (without ignorable characters), or null. */
  private @Nullable String identifier() {
    int start = at;
    if (at >= source.length() || !Character.isJavaIdentifierStart(source.charAt(at))) {
      return null;
    }
    at++;
    while (at < source.length() && Character.isJavaIdentifierPart(source.charAt(at))
        && !Character.isIdentifierIgnorable(source.charAt(at))) {
      at++;
    }
    return source.substring(start, at);
  }

  private void enter(int nesting, int position) {
    if (nesting > MAX_DEPTH) {
      throw tooDeep(position);
    }
  }

  private <S extends Syntax> S checked(S node, int nesting) {
    if (node.depth() + nesting > MAX_DEPTH) {
      throw tooDeep(node.start());
    }
    return node;
  }

  private static IllegalArgumentException tooDeep(int position) {
    return new IllegalArgumentException("nests deeper than " + MAX_DEPTH + " levels at position " + position
        + " (each parenthesis, argument list, member, index, + and ?: is a level)");
  }

  private void expect(String token, String why) {
    if (!lookingAt(token)) {
      throw unexpected("where '" + token + "' was expected " + why);
    }
    at += token.length();
  }

  private boolean lookingAt(String token) {
    return source.startsWith(token, at);
  }

  private void skipSpace() {
    while (at < source.length() && Character.isWhitespace(source.charAt(at))) {
      at++;
    }
  }

  private IllegalArgumentException unexpected(String where) {
    if (at >= source.length()) {
      return new IllegalArgumentException("ends " + where + " (at position " + at + ")");
    }
    char c = source.charAt(at);
    String hint = switch (c) {
      case '!', '-', '*', '/', '%', '<', '>', '=', '&', '|', '^' ->
          ": the key language has no operators but + (joins text) and ?: (a default for null)";
      case '@' -> ": bean references are not part of the key language";
      case '{' -> ": inline lists and maps are not part of the key language";
      default -> "";
    };
    return new IllegalArgumentException("unexpected " + describe(c) + " at position " + at + " " + where + hint);
  }

  private static String describe(char c) {
    return Character.isISOControl(c) || Character.isSurrogate(c)
        ? String.format("character U+%04X", (int) c) : "'" + c + "'";
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
