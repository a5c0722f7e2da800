package dev.weir.spring.keys;

import dev.weir.KeyExpressions;
import dev.weir.spring.properties.LogText;
import dev.weir.spring.web.RequestView;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Compiles the {@code key} of hot-parameter rules: a small expression language of Weir's own over a
 * call's arguments, which can read them and nothing else.
 *
 * <h2>Grammar</h2>
 * <pre>
 * expression  := concat ( '?:' concat )*           the first value that is not null (Elvis)
 * concat      := postfix ( '+' postfix )*           text joined; null when a part is null
 * postfix     := primary ( ('.' | '?.') member | '[' index ']' )*
 * member      := identifier [ '(' [ expression ( ',' expression )* ] ')' ]
 * index       := text | whole
 * primary     := '#' identifier | text | whole | 'null' | '(' expression ')'
 * text        := '...' with '' for a quote inside, or "..." with "" for one
 * whole       := digits, from 0 to 2147483647
 * </pre>
 * Identifiers are Java identifiers; white space between tokens is ignored.
 *
 * <h2>Names</h2>
 * An annotated method's arguments by parameter name ({@code #apiKey}), by position ({@code #p0},
 * {@code #a0}) and all of them ({@code #args}, the argument array); a route's arguments are
 * {@code #request}, a {@link RequestView}, and {@code #principal}, the principal's name (null when
 * unauthenticated); a {@code settle} expression of {@code @RateLimited} also reads {@code #result}
 * ({@link #compileCost}). A parameter named like a position ({@code p0}) wins. Each name becomes its
 * position once, when the rule is checked, so a call looks nothing up by name.
 *
 * <h2>Members and indexes</h2>
 * <ul>
 *   <li>a {@code String}: {@code toLowerCase()}, {@code toUpperCase()} (both with
 *       {@code Locale.ROOT}), {@code trim()}, {@code length()}, {@code substring(begin[, end])}
 *       (bounds clamped to the string);
 *   <li>the request view: {@code getHeader(name)}, {@code getParameter(name)}, {@code getMethod()},
 *       {@code getRequestURI()}, {@code getRemoteAddr()}, and {@code .method}, {@code .requestURI},
 *       {@code .remoteAddr};
 *   <li>an array: {@code .length}; an array or a {@code List}: {@code [0]}; a {@code Map}:
 *       {@code ['key']} or {@code [0]} (its {@code get});
 *   <li>an object of the application's: its accessors without arguments ({@code .x} for a record's
 *       component {@code x}, {@code getX()} or {@code isX()}; {@code .getX()}, {@code .isX()},
 *       {@code .x()} for a component), never anything declared by {@code java.lang.Object} or
 *       another platform or framework class ({@link Accessors}).
 * </ul>
 * Nothing else: no other method, no operator but {@code +} and {@code ?:}, no types, constructors,
 * beans, functions, assignments, selections or projections. A member of a platform or framework
 * object other than these is refused, so a method of the application that takes an
 * {@code HttpServletRequest} cannot be walked into either.
 *
 * <h2>When refused</h2>
 * When the rule is checked ({@link #compile} throws {@link IllegalArgumentException}, which the
 * callers turn into a violation naming the rule's path): a syntax error, an expression over
 * 1000 characters (before it is read), one nesting deeper than
 * 32 levels (each parenthesis, argument list, member, index, {@code +}
 * and {@code ?:} is a level), a name the resource's calls do not have, and whatever the declared
 * types make certain cannot work (a member of the view other than its reads, a method of
 * {@code String} not listed, a member of a platform type, an accessor a final class or record does
 * not have, a key that is the view itself). Where the declared type leaves it open, the same rules
 * decide on each call; a member or index that fails on a call ({@code .} on null, no such
 * accessor, an index past the end, an accessor that throws) gives a <b>null key</b>, decided by the
 * rule's {@code null-key}; the first failure of each expression is logged as a warning, later ones
 * at debug level. {@code ?.} on null gives null without a warning.
 *
 * <h2>Cost</h2>
 * Reading is linear in the expression's length, and no input can overflow the parser's stack
 * ({@link KeyParser}). Evaluating visits each node once: there are no loops but joining text and the
 * {@code String} methods, each linear in its input, so a key costs time linear in the expression
 * and in the values it reads. {@code #apiKey} is an array read; {@code #p0.customerId} one cached
 * accessor call; {@code #request.getHeader('X-Api-Key')} one interface call: after warm-up none of
 * them allocates.
 *
 * <h2>Why not SpEL</h2>
 * Weir compiled keys as SpEL before. SpEL's surface (operators with regular expressions,
 * selection and projection, type conversion, string repetition, method resolution by reflection
 * on any type, compiled bytecode that no longer asks the context's resolvers) can only be narrowed
 * by listing what to refuse, and a review reached the servlet context, the application context and
 * Netty through it, and ran a regular expression for seconds per call. A grammar of Weir's own
 * allows what it lists and nothing else, is bounded before it is read, is linear by construction,
 * and is cheaper per call.
 *
 * <h2>Names known late</h2>
 * Names are known once the resource's methods are: until {@link #seal} (called by the startup
 * check once every bean's class has been inspected), an expression of a resource whose methods are
 * not known yet is read and checked for syntax at once, and its names resolved on its first call
 * (a name it then does not find gives null keys, logged as an error); after it, a resource without
 * methods or route can name its arguments by position only.
 */
public final class KeyLanguage implements KeyExpressions {

  private static final Log logger = LogFactory.getLog(KeyLanguage.class);

  private final Function<String, @Nullable KeyArguments> arguments;
  private volatile boolean sealed;

  /**
   * Creates the compiler.
   *
   * @param arguments the names and declared types of the arguments of a resource's calls; null when
   *     the resource is not known (yet); throws {@link IllegalArgumentException} when its calls name
   *     their arguments in more than one way
   */
  public KeyLanguage(Function<String, @Nullable KeyArguments> arguments) {
    this.arguments = arguments;
  }

  /** From now on every resource's argument names are known: an expression naming unknown ones is refused. */
  public void seal() {
    sealed = true;
  }

  /**
   * {@inheritDoc}
   *
   * @throws IllegalArgumentException with the reason and its position in the expression
   */
  @Override
  public ParamKey compile(String resource, String expression) {
    Syntax syntax = KeyParser.parse(expression);
    KeyArguments known = arguments.apply(resource);
    if (known == null && !sealed && !KeyBinder.onlyPositional(syntax)) {
      return new Deferred(this, resource, expression, syntax);
    }
    return new Compiled(KeyBinder.bind(resource, expression, syntax, known), expression);
  }

  /**
   * {@inheritDoc}
   *
   * <p>Refused: a route's request view (or any argument declared as one), and an argument declared
   * as a framework's type outside {@code java.*} (an {@code HttpServletRequest}, a
   * {@code ServerWebExchange}): such an object stands for one call, so counting by it gives every
   * call a bucket of its own and keeps the live object in the per-key table. Count by a key
   * expression over it instead. Arguments of a resource not known yet are not checked.
   */
  @Override
  public void checkArgumentIndex(String resource, int index) {
    KeyArguments known = arguments.apply(resource);
    if (known == null) {
      return;
    }
    int at = index < 0 ? known.types().size() + index : index;
    if (at < 0 || at >= known.types().size()) {
      return; // a call without that argument is not limited; said in the rule's Javadoc
    }
    Class<?> type = known.types().get(at);
    boolean view = RequestView.class.isAssignableFrom(type);
    if (view || (Accessors.isPlatform(type) && !type.isPrimitive() && !type.getName().startsWith("java."))) {
      throw new IllegalArgumentException("the argument at position " + at + " of '" + resource + "' is "
          + (view ? "the request (#" + known.names().get(at) + ")" : "a " + type.getName())
          + ", which stands for one call: counting by it would give every call a bucket of its own; count by a key"
          + " instead, e.g. key: \"#request.getHeader('X-Api-Key')\" or \"#principal\"");
    }
  }

  /** The name of a method's result in a cost expression. */
  public static final String RESULT = "result";

  /**
   * Compiles the cost expression of a call of a method (the {@code settle} of
   * {@code @RateLimited}): the key language over the method's arguments, as for keys, and
   * {@code #result}, the call's result. The expression is evaluated on the arguments followed by the
   * result ({@code arguments.names().size() + 1} values; {@code #args} is the arguments alone), and a
   * failure gives null, logged as for keys but saying that the call keeps its estimate.
   *
   * @param resource the method's resource, for messages
   * @param expression the expression
   * @param arguments the names and declared types of the method's arguments
   * @param result the declared type of {@code #result} (an asynchronous method's element type), or
   *     null when the method has no result ({@code void}, {@code Void}, {@code Mono<Void>})
   * @throws IllegalArgumentException when the expression cannot be a cost of these calls: a syntax
   *     error, a member the types make certain cannot work, {@code #result} of a method without one, a
   *     position past the arguments, or an argument named {@code result}
   */
  public static ParamKey compileCost(String resource, String expression, KeyArguments arguments,
      @Nullable Class<?> result) {
    Syntax syntax = KeyParser.parse(expression);
    int count = arguments.names().size();
    if (result != null && arguments.names().contains(RESULT)) {
      throw new IllegalArgumentException("an argument is named 'result', which #result of the settle expression"
          + " would hide: rename the argument");
    }
    KeyBinder.names(syntax, name -> {
      if (name.name().equals(RESULT) && result == null && !arguments.names().contains(RESULT)) {
        throw new IllegalArgumentException("#result at position " + name.start() + ": the method returns no value"
            + " (void, Void, or a Mono, Flux or CompletionStage of Void), so there is no result to read a cost from");
      }
      int at = KeyBinder.position(name.name());
      if (at >= count && !arguments.names().contains(name.name())) {
        throw new IllegalArgumentException("#" + name.name() + " at position " + name.start() + " is past the "
            + count + " arguments of '" + resource + "': " + arguments.names());
      }
    });
    java.util.List<String> names = new java.util.ArrayList<>(arguments.names());
    java.util.List<Class<?>> types = new java.util.ArrayList<>(arguments.types());
    if (result != null) {
      names.add(RESULT);
      types.add(result);
    }
    return new Compiled(KeyBinder.bind(resource, expression, syntax, new KeyArguments(names, types), count),
        expression, "the call keeps its estimate (weir.settle.failures)");
  }

  /** A compiled key: its tree, evaluated on the argument array; a failure is a null key. */
  private static final class Compiled implements ParamKey {
    private final Node root;
    private final String source;
    private final AtomicBoolean warned = new AtomicBoolean();
    private final String consequence;

    Compiled(Node root, String source) {
      this(root, source, "the call counts as a null key (null-key)");
    }

    Compiled(Node root, String source, String consequence) {
      this.root = root;
      this.source = source;
      this.consequence = consequence;
    }

    @Override
    public @Nullable Object keyOf(Object[] args) {
      try {
        Object key = root.evaluate(args);
        if (key instanceof RequestView) {
          throw new KeyFailure("the key is the request view itself: use one of its reads");
        }
        return key;
      } catch (RuntimeException | LinkageError | StackOverflowError failed) {
        // KeyFailure, or what an application's accessor, toString, equals or collection threw
        if (warned.compareAndSet(false, true)) {
          logger.warn("Key expression '" + LogText.of(source) + "' failed; " + consequence + ". Later"
              + " failures are logged at debug level. Use ?. for values that may be null. " + failed.getMessage());
        } else if (logger.isDebugEnabled()) {
          logger.debug("Key expression '" + LogText.of(source) + "' failed: " + LogText.of(failed.getMessage()));
        }
        return null;
      }
    }

    @Override
    public String toString() {
      return "key " + source;
    }
  }

  /** A key of a resource whose argument names are not known yet: resolved on its first call. */
  private static final class Deferred implements ParamKey {
    private final KeyLanguage owner;
    private final String resource;
    private final String expression;
    private final Syntax syntax;
    private volatile @Nullable ParamKey resolved;

    Deferred(KeyLanguage owner, String resource, String expression, Syntax syntax) {
      this.owner = owner;
      this.resource = resource;
      this.expression = expression;
      this.syntax = syntax;
    }

    @Override
    public @Nullable Object keyOf(Object[] args) {
      ParamKey key = resolved;
      if (key == null) {
        synchronized (this) {
          key = resolved;
          if (key == null) {
            resolved = key = resolve();
          }
        }
      }
      return key.keyOf(args);
    }

    private ParamKey resolve() {
      try {
        return new Compiled(KeyBinder.bind(resource, expression, syntax, owner.arguments.apply(resource)),
            expression);
      } catch (RuntimeException | LinkageError | StackOverflowError invalid) {
        logger.error("Key expression '" + LogText.of(expression) + "' of '" + LogText.of(resource) + "' is invalid now that the arguments"
            + " of its calls are known: " + invalid.getMessage() + ". Its calls count as a null key (null-key).");
        return args -> null;
      }
    }

    @Override
    public String toString() {
      return "key " + expression + " (names not resolved yet)";
    }
  }
}
