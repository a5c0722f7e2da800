package dev.weir.spring.properties;

/**
 * Text that came from a rule source (a file, the endpoint's body or path, a principal's name) as it
 * may go into a log line: every control character written as {@code \\uXXXX}, so that no value an
 * operator or a client wrote can end a line and forge the next one, and at most
 * {@value #MAX_CHARS} characters of it, so that one value cannot flood the log.
 */
public final class LogText {

  /** The most characters of one value a log line shows; the rest is counted. */
  public static final int MAX_CHARS = 4096;

  private LogText() {
  }

  /** Returns {@code value} safe for a log line: control characters escaped, bounded in length. */
  public static String of(Object value) {
    String text = String.valueOf(value);
    int shown = Math.min(text.length(), MAX_CHARS);
    StringBuilder out = null;
    for (int i = 0; i < shown; i++) {
      char c = text.charAt(i);
      if (Character.isISOControl(c) || c == '\u2028' || c == '\u2029') {
        if (out == null) {
          out = new StringBuilder(shown + 16).append(text, 0, i);
        }
        out.append(String.format("\\u%04x", (int) c));
      } else if (out != null) {
        out.append(c);
      }
    }
    String safe = out != null ? out.toString() : text.substring(0, shown);
    return text.length() > shown ? safe + "... (" + (text.length() - shown) + " more characters)" : safe;
  }
}
