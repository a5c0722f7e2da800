package dev.weir.spring.keys;

import dev.weir.spring.web.RequestView;
import java.lang.reflect.Array;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * {@code receiver.name}, {@code receiver?.name} or {@code receiver.name(...)}. What it reads depends
 * on the receiver's value, decided per call in this order: a {@code String} has the methods of
 * {@link StringMethod}; a {@link RequestView} those of {@link ViewMethod}; an array its
 * {@code .length}; any other object the accessor {@link Accessors} allows for its class, or nothing.
 *
 * <p>The accessor is looked up once per receiver class and kept in a small inline cache: an array
 * of at most {@link #CACHE_SIZE} (class, accessor) pairs, replaced whole when one is added (a racing
 * addition may be lost and is then looked up again; it is never wrong). A member whose receivers
 * have more classes than that looks the others up on each call: correct, only slower. On a hit,
 * reading the member allocates nothing: {@code Method.invoke} gets a shared empty argument array.
 */
final class MemberNode extends Node {

  /** The most receiver classes a member remembers its accessor for. */
  static final int CACHE_SIZE = 8;

  private final Node receiver;
  private final String name;
  private final boolean nullSafe;
  private final boolean call;
  private final Node[] arguments;
  private final @Nullable StringMethod stringMethod;
  private final @Nullable ViewMethod viewMethod;
  private volatile Cached[] cache = new Cached[0];

  MemberNode(Node receiver, String name, boolean nullSafe, @Nullable List<Node> arguments, String source, int start,
      int end) {
    super(source, start, end);
    this.receiver = receiver;
    this.name = name;
    this.nullSafe = nullSafe;
    this.call = arguments != null;
    this.arguments = arguments == null ? new Node[0] : arguments.toArray(new Node[0]);
    this.stringMethod = StringMethod.of(name, call, this.arguments.length);
    this.viewMethod = ViewMethod.of(name, call, this.arguments.length);
  }

  /** Whether this is {@code .length}, an array's length. */
  boolean isArrayLength() {
    return !call && name.equals("length");
  }

  @Nullable StringMethod stringMethod() {
    return stringMethod;
  }

  @Nullable ViewMethod viewMethod() {
    return viewMethod;
  }

  /** Remembers what {@code type}'s objects read, found when the rule was checked. */
  void remember(Class<?> type, Accessors.Access access) {
    cache = new Cached[] {new Cached(type, access)};
  }

  @Override
  @Nullable Object evaluate(Object[] args) {
    Object value = receiver.evaluate(args);
    if (value == null) {
      if (nullSafe) {
        return null;
      }
      throw new KeyFailure(receiver.text() + " is null, so " + text() + " has no value (write ?. where a value may"
          + " be null)");
    }
    if (value instanceof String text) {
      if (stringMethod == null) {
        throw new KeyFailure(text() + ": " + receiver.text() + " is a String, whose methods here are "
            + StringMethod.LIST);
      }
      return stringMethod.apply(text, this, args);
    }
    if (value instanceof RequestView view) {
      if (viewMethod == null) {
        throw new KeyFailure(text() + ": " + ViewMethod.refusal(receiver.text(), name));
      }
      return viewMethod.apply(view, this, args);
    }
    if (value.getClass().isArray()) {
      if (!isArrayLength()) {
        throw new KeyFailure(text() + ": " + receiver.text() + " is an array, whose only member is .length");
      }
      return Array.getLength(value);
    }
    if (call && arguments.length > 0) {
      throw new KeyFailure(text() + ": only String's substring and the request's getHeader and getParameter take"
          + " arguments");
    }
    return access(value.getClass()).read(value);
  }

  private Accessors.Access access(Class<?> type) {
    Cached[] entries = cache;
    for (Cached entry : entries) {
      if (entry.type == type) {
        return entry.access;
      }
    }
    Accessors.Access resolved = Accessors.resolve(type, name, call);
    if (entries.length < CACHE_SIZE) {
      Cached[] more = Arrays.copyOf(entries, entries.length + 1);
      more[entries.length] = new Cached(type, resolved);
      cache = more;
    }
    return resolved;
  }

  /** The value of argument {@code index}. */
  @Nullable Object argument(int index, Object[] args) {
    return arguments[index].evaluate(args);
  }

  private static final class Cached {
    final Class<?> type;
    final Accessors.Access access;

    Cached(Class<?> type, Accessors.Access access) {
      this.type = type;
      this.access = access;
    }
  }

  /**
   * The methods a {@code String} has in a key: each linear in the string's length. Case is changed
   * with {@link Locale#ROOT}, so that a key does not depend on the server's locale; {@code substring}
   * clamps its bounds to the string ({@code substring(0, 8)} of a shorter key is the whole key).
   */
  enum StringMethod {
    TO_LOWER_CASE("toLowerCase", 0, 0),
    TO_UPPER_CASE("toUpperCase", 0, 0),
    TRIM("trim", 0, 0),
    LENGTH("length", 0, 0),
    SUBSTRING("substring", 1, 2);

    static final String LIST = "toLowerCase(), toUpperCase(), trim(), length() and substring(begin[, end])";

    private final String methodName;
    private final int fewest;
    private final int most;

    StringMethod(String methodName, int fewest, int most) {
      this.methodName = methodName;
      this.fewest = fewest;
      this.most = most;
    }

    /** The method {@code name(...)} with {@code count} arguments means, or null. */
    static @Nullable StringMethod of(String name, boolean call, int count) {
      if (!call) {
        return null;
      }
      for (StringMethod method : values()) {
        if (method.methodName.equals(name) && count >= method.fewest && count <= method.most) {
          return method;
        }
      }
      return null;
    }

    Object apply(String text, MemberNode node, Object[] args) {
      switch (this) {
        case TO_LOWER_CASE:
          return text.toLowerCase(Locale.ROOT);
        case TO_UPPER_CASE:
          return text.toUpperCase(Locale.ROOT);
        case TRIM:
          return text.trim();
        case LENGTH:
          return text.length();
        default:
          int length = text.length();
          int begin = clamp(whole(node, 0, args), 0, length);
          int end = node.arguments.length > 1 ? clamp(whole(node, 1, args), begin, length) : length;
          return text.substring(begin, end);
      }
    }

    private static int whole(MemberNode node, int index, Object[] args) {
      Object value = node.argument(index, args);
      if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
        return ((Number) value).intValue();
      }
      if (value instanceof Long whole) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, whole));
      }
      throw new KeyFailure(node.text() + ": argument " + (index + 1) + " of substring is "
          + (value == null ? "null" : "a " + value.getClass().getName()) + ", not a whole number");
    }

    private static int clamp(int value, int lowest, int highest) {
      return Math.max(lowest, Math.min(highest, value));
    }
  }

  /** What {@code #request} has: the five reads of {@link RequestView}, and the property forms of three. */
  enum ViewMethod {
    GET_HEADER("getHeader", null, 1),
    GET_PARAMETER("getParameter", null, 1),
    GET_METHOD("getMethod", "method", 0),
    GET_REQUEST_URI("getRequestURI", "requestURI", 0),
    GET_REMOTE_ADDR("getRemoteAddr", "remoteAddr", 0);

    static final String LIST = "getHeader(name), getParameter(name), getMethod(), getRequestURI() and"
        + " getRemoteAddr() (or .method, .requestURI, .remoteAddr)";

    private final String methodName;
    private final @Nullable String property;
    private final int count;

    ViewMethod(String methodName, @Nullable String property, int count) {
      this.methodName = methodName;
      this.property = property;
      this.count = count;
    }

    /** The read {@code .name} or {@code .name(...)} with {@code count} arguments means, or null. */
    static @Nullable ViewMethod of(String name, boolean call, int count) {
      for (ViewMethod method : values()) {
        if (call ? method.methodName.equals(name) && method.count == count : name.equals(method.property)) {
          return method;
        }
      }
      return null;
    }

    /** Why {@code member} of the view {@code receiver} is refused, with a hint for the old forms. */
    static String refusal(String receiver, String member) {
      String hint = switch (member) {
        case "headers", "getHeaders" -> "; for a header write " + receiver + ".getHeader('X-Api-Key')";
        case "getParameterMap", "parameterMap", "queryParams", "getQueryParams" ->
            "; for a query parameter write " + receiver + ".getParameter('name')";
        case "userPrincipal", "getUserPrincipal", "principal", "getPrincipal" ->
            "; the principal's name is #principal";
        default -> "";
      };
      return receiver + " is a read-only view of the request with " + LIST + " only, never the request itself"
          + hint;
    }

    @Nullable Object apply(RequestView view, MemberNode node, Object[] args) {
      switch (this) {
        case GET_HEADER:
          return view.getHeader(name(node, args));
        case GET_PARAMETER:
          return view.getParameter(name(node, args));
        case GET_METHOD:
          return view.getMethod();
        case GET_REQUEST_URI:
          return view.getRequestURI();
        default:
          return view.getRemoteAddr();
      }
    }

    private String name(MemberNode node, Object[] args) {
      Object name = node.argument(0, args);
      if (name instanceof String text) {
        return text;
      }
      throw new KeyFailure(node.text() + ": the argument of " + methodName + " is "
          + (name == null ? "null" : "a " + name.getClass().getName()) + ", not a text");
    }
  }
}
