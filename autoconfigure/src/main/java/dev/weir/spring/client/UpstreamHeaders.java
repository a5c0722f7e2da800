package dev.weir.spring.client;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;

/**
 * Reads how long a server's answer asks that no further request be sent: {@code Retry-After} on a
 * 429 or 503 (delay-seconds or an HTTP-date, RFC 9110), else the {@code RateLimit} header of
 * draft-ietf-httpapi-ratelimit-headers-11 on any answer, a structured-field list (RFC 8941) of
 * policies with {@code r} (what is left) and {@code t} (seconds until more): the smallest {@code t}
 * of the policies with {@code r=0}. On any answer it also reads the budgets model providers send: a
 * {@code x-ratelimit-remaining-tokens} (or {@code -requests}) of 0 asks for the delay of
 * {@code x-ratelimit-reset-tokens} (or {@code -requests}), a duration such as {@code 20ms},
 * {@code 6m0s} or {@code 1h2m3.5s} (units {@code h m s ms us ns}); an
 * {@code anthropic-ratelimit-*-remaining} of 0 (requests, tokens, input-tokens, output-tokens) asks
 * until its {@code anthropic-ratelimit-*-reset}, an RFC 3339 time such as
 * {@code 2030-01-02T03:04:35Z}. Of these budgets the longest delay is honoured, and of it and
 * {@code RateLimit} the longer; a valid {@code Retry-After} on a 429 or 503 wins over them all.
 *
 * <p>Headers are hostile input. Whatever they hold, reading them never throws and takes time linear
 * in at most {@value #MAX_RETRY_AFTER_LENGTH} characters of {@code Retry-After} (and of
 * {@code Date}, and of each provider budget header) and {@value #MAX_RATE_LIMIT_LENGTH} of {@code RateLimit} (all its field lines
 * together); a longer value, or one that is not exactly what the grammar allows, is ignored as a
 * whole, as if absent. The delay is at most {@link #MAX_PAUSE} (an hour): a server asking for more
 * gets an hour, after which the next answer may ask again.
 *
 * <p>Why the smallest {@code t}: each policy of the list may count a different part of the server's
 * traffic (a partition of its own), so only the nearest of them surely binds the next request; a
 * server whose other policy still binds says so again with its next answer. A provider's budgets are
 * the opposite: its requests and its tokens both count every request of the caller, so a request
 * waits for the later of their resets. An HTTP-date (and an RFC 3339 reset) counts from
 * the answer's own {@code Date} when it has a valid one (so that the two clocks need not agree),
 * else from this host's clock.
 */
public final class UpstreamHeaders {

  /** The longest delay honoured: an answer asking for more gets this. */
  public static final Duration MAX_PAUSE = Duration.ofHours(1);

  /** The longest {@code Retry-After} (and {@code Date}) value read; a longer one is ignored. */
  public static final int MAX_RETRY_AFTER_LENGTH = 64;

  /** The longest {@code RateLimit} value read, all field lines together; a longer one is ignored. */
  public static final int MAX_RATE_LIMIT_LENGTH = 4096;

  private static final long MAX_PAUSE_SECONDS = MAX_PAUSE.getSeconds();
  private static final int MAX_LINES = 32;

  /** HTTP-date's three forms (RFC 9110, 5.6.7): IMF-fixdate, RFC 850, asctime. */
  private static final DateTimeFormatter[] DATES = {
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC),
      DateTimeFormatter.ofPattern("EEEE, dd-MMM-yy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC),
      DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.US).withZone(ZoneOffset.UTC)};

  private UpstreamHeaders() {
  }

  /**
   * Returns how long the answer asks that no request be sent, in milliseconds, at most an hour: 0 when
   * it asks for nothing or its headers cannot be read.
   *
   * @param status the answer's status code
   * @param headers the answer's headers
   * @param nowMillis this host's wall clock, for an HTTP-date when the answer has no valid {@code Date}
   */
  public static long pauseMillis(int status, HttpHeaders headers, long nowMillis) {
    try {
      if (status == 429 || status == 503) {
        long retryAfter = retryAfterMillis(headers.get(HttpHeaders.RETRY_AFTER), headers.get(HttpHeaders.DATE),
            nowMillis);
        if (retryAfter >= 0) {
          return retryAfter;
        }
      }
      long seconds = rateLimitSeconds(headers.get("RateLimit"));
      long rateLimit = seconds <= 0 ? 0 : seconds * 1000;
      return Math.max(rateLimit, budgetMillis(headers, nowMillis));
    } catch (RuntimeException | StackOverflowError unexpected) { // never thrown by the parsers; kept as a guard
      return 0;
    }
  }

  /**
   * The delay {@code Retry-After} asks for in milliseconds (at most an hour, 0 for a date in the past),
   * or -1 when there is none or it is not valid.
   */
  static long retryAfterMillis(@Nullable List<String> values, @Nullable List<String> date, long nowMillis) {
    String value = first(values);
    if (value == null) {
      return -1;
    }
    if (isDigits(value)) {
      long seconds = 0;
      for (int i = 0; i < value.length() && seconds <= MAX_PAUSE_SECONDS; i++) {
        seconds = seconds * 10 + (value.charAt(i) - '0'); // stops once over the cap: no overflow
      }
      return Math.min(seconds, MAX_PAUSE_SECONDS) * 1000;
    }
    long at = httpDate(value);
    if (at == Long.MIN_VALUE) {
      return -1;
    }
    String dateValue = first(date);
    long base = dateValue == null ? Long.MIN_VALUE : httpDate(dateValue);
    long delay = at - (base == Long.MIN_VALUE ? nowMillis : base);
    return Math.max(0, Math.min(delay, MAX_PAUSE.toMillis()));
  }

  /** Model providers' budget headers: the remaining and the reset of each, in pairs. */
  private static final String[][] DURATION_BUDGETS = {
      {"x-ratelimit-remaining-tokens", "x-ratelimit-reset-tokens"},
      {"x-ratelimit-remaining-requests", "x-ratelimit-reset-requests"}};
  private static final String[] INSTANT_BUDGETS = {"requests", "tokens", "input-tokens", "output-tokens"};

  /**
   * The longest delay of the providers' budgets with nothing left, in milliseconds (at most an hour);
   * 0 when none is spent or a spent one's reset cannot be read.
   */
  static long budgetMillis(HttpHeaders headers, long nowMillis) {
    long longest = 0;
    for (String[] budget : DURATION_BUDGETS) {
      if (spent(headers.get(budget[0]))) {
        String reset = first(headers.get(budget[1]));
        long nanos = reset == null ? -1 : durationNanos(reset);
        if (nanos > 0) {
          longest = Math.max(longest, (nanos + 999_999) / 1_000_000); // rounded up: never sent before it
        }
      }
    }
    long base = Long.MIN_VALUE;
    for (String name : INSTANT_BUDGETS) {
      if (spent(headers.get("anthropic-ratelimit-" + name + "-remaining"))) {
        long at = rfc3339(first(headers.get("anthropic-ratelimit-" + name + "-reset")));
        if (at != Long.MIN_VALUE) {
          if (base == Long.MIN_VALUE) {
            String dateValue = first(headers.get(HttpHeaders.DATE));
            long date = dateValue == null ? Long.MIN_VALUE : httpDate(dateValue);
            base = date == Long.MIN_VALUE ? nowMillis : date;
          }
          longest = Math.max(longest, at - base);
        }
      }
    }
    return Math.min(longest, MAX_PAUSE.toMillis());
  }

  /** Whether a remaining header says nothing is left: digits, all zeros. */
  private static boolean spent(@Nullable List<String> values) {
    String value = first(values);
    if (value == null) {
      return false;
    }
    for (int i = 0; i < value.length(); i++) {
      if (value.charAt(i) != '0') {
        return false;
      }
    }
    return true;
  }

  /** Epoch milliseconds of an RFC 3339 date-time with its offset, or {@link Long#MIN_VALUE}. */
  private static long rfc3339(@Nullable String value) {
    if (value == null) {
      return Long.MIN_VALUE;
    }
    try {
      return OffsetDateTime.parse(value).toInstant().toEpochMilli();
    } catch (DateTimeException | ArithmeticException notOne) {
      return Long.MIN_VALUE;
    }
  }

  /** The longest duration read, in nanoseconds: an hour; a longer one is read as this. */
  private static final long MAX_PAUSE_NANOS = MAX_PAUSE.toNanos();

  /**
   * A duration in the form model providers send (the form of Go's {@code time.Duration}): one or more
   * components, each a decimal number (digits, optionally a fraction) and a unit of {@code h},
   * {@code m}, {@code s}, {@code ms}, {@code us} (or {@code µs}) and {@code ns}; or a bare {@code 0}.
   * Returns it in nanoseconds, at most an hour, or -1 when the value is not one.
   *
   * <p>Each step consumes at least one character, so the work is linear in the value's length (which
   * {@link #first} caps). Sums and products saturate at the cap before they could overflow: an
   * integer part stops growing past the cap (a value there already means "an hour"), a component
   * whose product would pass the cap is the cap, and the sum stays at the cap once it reaches it.
   */
  static long durationNanos(String value) {
    if (value.equals("0")) {
      return 0;
    }
    int at = 0;
    int length = value.length();
    long total = 0;
    if (length == 0) {
      return -1;
    }
    while (at < length) {
      long whole = 0;
      int start = at;
      while (at < length && isDigit(value.charAt(at))) {
        if (whole <= MAX_PAUSE_NANOS) {
          whole = whole * 10 + (value.charAt(at) - '0'); // at most 10 * cap + 9: no overflow
        }
        at++;
      }
      boolean hasWhole = at > start;
      long fraction = 0;
      long scale = 1;
      boolean hasFraction = false;
      if (at < length && value.charAt(at) == '.') {
        at++;
        int fractionStart = at;
        while (at < length && isDigit(value.charAt(at))) {
          if (scale < 1_000_000_000_000L) { // digits past 12 cannot matter at a nanosecond of an hour
            fraction = fraction * 10 + (value.charAt(at) - '0');
            scale *= 10;
          }
          at++;
        }
        hasFraction = at > fractionStart;
      }
      if (!hasWhole && !hasFraction) {
        return -1;
      }
      int unitStart = at;
      while (at < length && !isDigit(value.charAt(at)) && value.charAt(at) != '.') {
        at++;
      }
      long unit = unitNanos(value, unitStart, at);
      if (unit <= 0) {
        return -1;
      }
      long component;
      if (whole > MAX_PAUSE_NANOS / unit) {
        component = MAX_PAUSE_NANOS;
      } else {
        // fraction < scale <= 10^12 and unit <= 3.6 * 10^12: the product could overflow a long, the
        // quotient (below one unit) cannot; a double's rounding is far under a nanosecond's worth here
        component = whole * unit + (long) Math.ceil((double) fraction / scale * unit);
      }
      total = Math.min(MAX_PAUSE_NANOS, total + Math.min(component, MAX_PAUSE_NANOS));
    }
    return total;
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** The nanoseconds of the unit {@code value[from, to)}, or -1 when it is none. */
  private static long unitNanos(String value, int from, int to) {
    return switch (value.substring(from, to)) {
      case "ns" -> 1L;
      case "us", "\u00b5s", "\u03bcs" -> 1_000L;
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      case "m" -> 60_000_000_000L;
      case "h" -> 3_600_000_000_000L;
      default -> -1L;
    };
  }

  /** The first field line, without surrounding whitespace, or null when absent or too long. */
  private static @Nullable String first(@Nullable List<String> values) {
    if (values == null || values.isEmpty() || values.get(0) == null) {
      return null;
    }
    String value = values.get(0);
    if (value.length() > MAX_RETRY_AFTER_LENGTH) {
      return null;
    }
    value = value.strip();
    return value.isEmpty() ? null : value;
  }

  private static boolean isDigits(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /** Epoch milliseconds of an HTTP-date, or {@link Long#MIN_VALUE} when it is none. */
  static long httpDate(String value) {
    if (value.length() > MAX_RETRY_AFTER_LENGTH) {
      return Long.MIN_VALUE;
    }
    for (DateTimeFormatter format : DATES) {
      try {
        return ZonedDateTime.parse(value, format).toInstant().toEpochMilli();
      } catch (DateTimeException | ArithmeticException notThisForm) {
        // the next form
      }
    }
    return Long.MIN_VALUE;
  }

  /**
   * The smallest {@code t} of the policies with {@code r=0} in {@code RateLimit}, in seconds (at most
   * an hour); 0 when none has {@code r=0} with a {@code t}, -1 when the field is absent or invalid.
   */
  static long rateLimitSeconds(@Nullable List<String> values) {
    if (values == null || values.isEmpty() || values.size() > MAX_LINES) {
      return -1;
    }
    String field;
    if (values.size() == 1) {
      field = values.get(0);
    } else {
      StringBuilder joined = new StringBuilder(); // field lines of a list combine with commas (RFC 9110, 5.3)
      for (String value : values) {
        if (value == null || joined.length() + value.length() > MAX_RATE_LIMIT_LENGTH) {
          return -1;
        }
        if (!joined.isEmpty()) {
          joined.append(',');
        }
        joined.append(value);
      }
      field = joined.toString();
    }
    if (field == null || field.length() > MAX_RATE_LIMIT_LENGTH) {
      return -1;
    }
    long t = new StructuredList(field).smallestResetOfExhausted();
    return t < 0 ? t : Math.min(t, MAX_PAUSE_SECONDS);
  }

  /**
   * A parser of one structured-field list (RFC 8941, 4.2.1, with the date of RFC 9651) that keeps
   * only what is asked of it: the smallest integer {@code t} of the members whose integer {@code r}
   * is 0. Each step moves forward at least one character or stops, so the work is linear in the
   * field's length; nothing is allocated but the parser itself.
   */
  static final class StructuredList {
    private static final long INVALID = -1;
    private static final long NO_VALUE = Long.MIN_VALUE;

    private final String input;
    private int at;
    /** The integer value of the last bare item, or {@link #NO_VALUE} for another type. */
    private long integer;
    /** The integer parameters {@code r} and {@code t} of the member being read, or {@link #NO_VALUE}. */
    private long remaining;
    private long reset;

    StructuredList(String input) {
      this.input = input;
    }

    /** The smallest {@code t} of the members with {@code r=0}; 0 when none; -1 when the list is invalid. */
    long smallestResetOfExhausted() {
      skipSpaces();
      if (at == input.length()) {
        return INVALID; // an empty field is no field
      }
      long smallest = Long.MAX_VALUE;
      while (true) {
        remaining = NO_VALUE;
        reset = NO_VALUE;
        if (!member()) {
          return INVALID;
        }
        if (remaining == 0 && reset >= 0) {
          smallest = Math.min(smallest, reset);
        }
        skipWhitespace();
        if (at == input.length()) {
          return smallest == Long.MAX_VALUE ? 0 : smallest;
        }
        if (input.charAt(at++) != ',') {
          return INVALID;
        }
        skipWhitespace();
        if (at == input.length()) {
          return INVALID; // a trailing comma
        }
      }
    }

    /** An item or an inner list, with its parameters; its {@code r} and {@code t} go to the fields. */
    private boolean member() {
      if (peek() == '(') {
        at++;
        while (true) {
          skipSpaces();
          if (peek() == ')') {
            at++;
            break;
          }
          if (!bareItem() || !parameters(false)) {
            return false;
          }
          char next = peek();
          if (next != ' ' && next != ')') {
            return false;
          }
        }
      } else if (!bareItem()) {
        return false;
      }
      return parameters(true);
    }

    private boolean parameters(boolean ofMember) {
      while (peek() == ';') {
        at++;
        skipSpaces();
        int keyStart = at;
        char first = peek();
        if (!(first >= 'a' && first <= 'z') && first != '*') {
          return false;
        }
        at++;
        while (at < input.length()) {
          char c = input.charAt(at);
          if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' || c == '*') {
            at++;
          } else {
            break;
          }
        }
        int keyEnd = at;
        long value = NO_VALUE;
        if (peek() == '=') {
          at++;
          if (!bareItem()) {
            return false;
          }
          value = integer;
        }
        if (ofMember && keyEnd - keyStart == 1) {
          char key = input.charAt(keyStart);
          if (key == 'r') {
            remaining = value;
          } else if (key == 't') {
            reset = value;
          }
        }
      }
      return true;
    }

    /** A bare item of any type; {@link #integer} is its value when it is an integer. */
    private boolean bareItem() {
      integer = NO_VALUE;
      char c = peek();
      if (c == '-' || (c >= '0' && c <= '9')) {
        return number();
      }
      if (c == '"') {
        return string();
      }
      if (c == '*' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        return token();
      }
      if (c == ':') {
        return byteSequence();
      }
      if (c == '?') {
        at++;
        char value = peek();
        if (value != '0' && value != '1') {
          return false;
        }
        at++;
        return true;
      }
      if (c == '@') { // a date (RFC 9651): an integer of seconds
        at++;
        boolean valid = number();
        integer = NO_VALUE;
        return valid;
      }
      return false;
    }

    private boolean number() {
      boolean negative = false;
      if (peek() == '-') {
        negative = true;
        at++;
      }
      int start = at;
      long value = 0;
      while (at < input.length() && input.charAt(at) >= '0' && input.charAt(at) <= '9') {
        if (at - start == 15) {
          return false; // an integer has at most 15 digits
        }
        value = value * 10 + (input.charAt(at++) - '0');
      }
      int digits = at - start;
      if (digits == 0) {
        return false;
      }
      if (peek() == '.') { // a decimal: at most 12 digits, then 1 to 3
        if (digits > 12) {
          return false;
        }
        at++;
        int fraction = at;
        while (at < input.length() && input.charAt(at) >= '0' && input.charAt(at) <= '9') {
          at++;
        }
        return at - fraction >= 1 && at - fraction <= 3; // integer stays NO_VALUE
      }
      integer = negative ? -value : value;
      return true;
    }

    private boolean string() {
      at++; // the opening quote
      while (at < input.length()) {
        char c = input.charAt(at++);
        if (c == '\\') {
          if (at == input.length()) {
            return false;
          }
          char escaped = input.charAt(at++);
          if (escaped != '"' && escaped != '\\') {
            return false;
          }
        } else if (c == '"') {
          return true;
        } else if (c < 0x20 || c > 0x7e) {
          return false;
        }
      }
      return false; // no closing quote
    }

    private boolean token() {
      at++;
      while (at < input.length()) {
        char c = input.charAt(at);
        if (isTchar(c) || c == ':' || c == '/') {
          at++;
        } else {
          break;
        }
      }
      return true;
    }

    private static boolean isTchar(char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    private boolean byteSequence() {
      at++; // the opening colon
      while (at < input.length()) {
        char c = input.charAt(at++);
        if (c == ':') {
          return true;
        }
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' || c == '/'
            || c == '=')) {
          return false;
        }
      }
      return false;
    }

    private char peek() {
      return at < input.length() ? input.charAt(at) : '\0';
    }

    private void skipSpaces() {
      while (at < input.length() && input.charAt(at) == ' ') {
        at++;
      }
    }

    private void skipWhitespace() {
      while (at < input.length() && (input.charAt(at) == ' ' || input.charAt(at) == '\t')) {
        at++;
      }
    }
  }
}
