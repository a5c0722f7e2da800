package dev.weir.spring.keys;

import dev.weir.KeyExpressions;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelCompilerMode;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.SpelParserConfiguration;
import org.springframework.expression.spel.ast.Assign;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.ConstructorReference;
import org.springframework.expression.spel.ast.FunctionReference;
import org.springframework.expression.spel.ast.TypeReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Compiles the {@code key} of hot-parameter rules as SpEL over a call's arguments.
 *
 * <p>The arguments are named as a resource's calls name them ({@link #compile}): an annotated
 * method's by its parameter names, {@code #p0}/{@code #a0} by position and {@code #args} for all of
 * them; a route's as {@code #request} and {@code #principal}. Each name is replaced, once, by its
 * position ({@code #apiKey} becomes {@code #root[1]}) and the expression is evaluated with the
 * argument array as its root object. So a call looks nothing up by name and needs no evaluation
 * context of its own: after its first hundred calls SpEL compiles the expression to bytecode (mixed
 * mode), and evaluating it then allocates nothing of its own.
 *
 * <p>Expressions read: properties, indexes, instance methods and operators. Type references
 * ({@code T(...)}), constructors, bean references, functions and assignments are refused when the
 * rule is checked, and evaluation runs in a read-only context ({@link ReadOnlyCompilingContext}):
 * rules written through the endpoint must not run arbitrary code. An expression that fails on a call (a property
 * of null, say) gives a null key, decided by the rule's {@code null-key}; the first failure of each
 * expression is logged as a warning, later ones at debug level.
 *
 * <p>Names are known once the resource's methods are: until {@link #seal} (called by the startup
 * check once every bean's class has been inspected), an expression of a resource whose methods are
 * not known yet is resolved on its first call; after it, a resource without methods or route can
 * name its arguments by position only.
 */
public final class SpelKeyExpressions implements KeyExpressions {

  private static final Log logger = LogFactory.getLog(SpelKeyExpressions.class);
  private static final Pattern POSITIONAL = Pattern.compile("[pa](\\d{1,3})");
  private static final SpelExpressionParser CHECKING = new SpelExpressionParser();
  private static final List<Class<? extends SpelNode>> REFUSED = List.of(TypeReference.class,
      ConstructorReference.class, BeanReference.class, FunctionReference.class, Assign.class);

  private final Function<String, @Nullable List<String>> argumentNames;
  private final SpelExpressionParser parser;
  private final EvaluationContext context = new ReadOnlyCompilingContext();
  private volatile boolean sealed;

  /**
   * Creates the compiler.
   *
   * @param argumentNames the names of the arguments of a resource's calls, in order; null when the
   *     resource is not known (yet); throws {@link IllegalArgumentException} when its calls name
   *     their arguments in more than one way
   * @param classLoader for the classes SpEL compiles expressions into
   */
  public SpelKeyExpressions(Function<String, @Nullable List<String>> argumentNames,
      @Nullable ClassLoader classLoader) {
    this.argumentNames = argumentNames;
    this.parser = new SpelExpressionParser(new SpelParserConfiguration(SpelCompilerMode.MIXED, classLoader));
  }

  /** From now on every resource's argument names are known: an expression naming unknown ones is refused. */
  public void seal() {
    sealed = true;
  }

  @Override
  public ParamKey compile(String resource, String expression) {
    SpelExpression checked;
    try {
      checked = (SpelExpression) CHECKING.parseExpression(expression);
    } catch (ParseException invalid) {
      throw new IllegalArgumentException("is not a valid SpEL expression: " + invalid.getSimpleMessage()
          + " at position " + invalid.getPosition());
    }
    refuseWhatRunsCode(checked.getAST());
    List<String> names = argumentNames.apply(resource);
    if (names == null && !sealed && !onlyPositional(expression)) {
      return new Deferred(this, resource, expression);
    }
    return resolved(expression, names, resource);
  }

  private ParamKey resolved(String expression, @Nullable List<String> names, String resource) {
    String positional = Names.toPositions(expression, name -> position(name, names, resource));
    SpelExpression compiled = (SpelExpression) parser.parseExpression(positional);
    return new Compiled(compiled, context, expression);
  }

  /** Whether {@code expression} names its arguments by position only (resolvable without names). */
  private static boolean onlyPositional(String expression) {
    boolean[] named = new boolean[1];
    Names.toPositions(expression, name -> {
      named[0] |= !POSITIONAL.matcher(name).matches() && !name.equals("args") && !name.equals("root")
          && !name.equals("this");
      return "#" + name;
    });
    return !named[0];
  }

  /** What {@code #name} becomes; see the class comment. */
  private static String position(String name, @Nullable List<String> names, String resource) {
    if (name.equals("root") || name.equals("this")) {
      return "#" + name;
    }
    int index = names == null ? -1 : names.indexOf(name);
    if (index >= 0) {
      return "#root[" + index + "]";
    }
    if (name.equals("args")) {
      return "#root";
    }
    Matcher positional = POSITIONAL.matcher(name);
    if (positional.matches()) {
      int at = Integer.parseInt(positional.group(1));
      if (names != null && at >= names.size()) {
        throw new IllegalArgumentException("#" + name + " is past the arguments of '" + resource + "', which has "
            + names.size() + ": " + names);
      }
      return "#root[" + at + "]";
    }
    throw new IllegalArgumentException("#" + name + " is no argument of '" + resource + "': " + (names == null
        ? "it is no @RateLimited method or route, so its arguments are named by position only (#p0, #a0, #args)"
        : "its arguments are " + names + " (or #p0.., #a0.., #args)"));
  }

  private static void refuseWhatRunsCode(SpelNode node) {
    for (Class<? extends SpelNode> refused : REFUSED) {
      if (refused.isInstance(node)) {
        throw new IllegalArgumentException("may only read the arguments; " + describe(refused) + " at position "
            + node.getStartPosition() + " is not allowed");
      }
    }
    for (int i = 0; i < node.getChildCount(); i++) {
      refuseWhatRunsCode(node.getChild(i));
    }
  }

  private static String describe(Class<? extends SpelNode> refused) {
    return switch (refused.getSimpleName()) {
      case "TypeReference" -> "a type reference T(...)";
      case "ConstructorReference" -> "a constructor call (new ...)";
      case "BeanReference" -> "a bean reference (@...)";
      case "FunctionReference" -> "a function call (#name(...))";
      default -> "an assignment (=)";
    };
  }

  /** A compiled key: the positional expression, evaluated with the argument array as root. */
  private static final class Compiled implements ParamKey {
    private final SpelExpression expression;
    private final EvaluationContext context;
    private final String source;
    private final AtomicBoolean warned = new AtomicBoolean();

    Compiled(SpelExpression expression, EvaluationContext context, String source) {
      this.expression = expression;
      this.context = context;
      this.source = source;
    }

    @Override
    public @Nullable Object keyOf(Object[] args) {
      try {
        return expression.getValue(context, args);
      } catch (RuntimeException failed) {
        if (warned.compareAndSet(false, true)) {
          logger.warn("Key expression '" + source + "' failed; the call counts as a null key (null-key). Later"
              + " failures are logged at debug level. Use ?. for values that may be null.", failed);
        } else if (logger.isDebugEnabled()) {
          logger.debug("Key expression '" + source + "' failed: " + String.valueOf(failed.getMessage()));
        }
        return null;
      }
    }

    @Override
    public String toString() {
      return "key " + source + (expression.getAST().isCompilable() && isCompiled() ? " (compiled)" : " (interpreted)");
    }

    private boolean isCompiled() {
      try {
        java.lang.reflect.Field compiled = SpelExpression.class.getDeclaredField("compiledAst");
        compiled.setAccessible(true);
        return compiled.get(expression) != null; // for tests and logs only: never on the hot path
      } catch (ReflectiveOperationException | RuntimeException unknown) {
        return false;
      }
    }
  }

  /** A key of a resource whose argument names are not known yet: resolved on its first call. */
  private static final class Deferred implements ParamKey {
    private final SpelKeyExpressions owner;
    private final String resource;
    private final String expression;
    private volatile @Nullable ParamKey resolved;

    Deferred(SpelKeyExpressions owner, String resource, String expression) {
      this.owner = owner;
      this.resource = resource;
      this.expression = expression;
    }

    @Override
    public @Nullable Object keyOf(Object[] args) {
      ParamKey key = resolved;
      if (key == null) {
        synchronized (this) {
          key = resolved;
          if (key == null) {
            resolved = key = owner.resolved(expression, owner.argumentNames.apply(resource), resource);
          }
        }
      }
      return key.keyOf(args);
    }
  }
}
