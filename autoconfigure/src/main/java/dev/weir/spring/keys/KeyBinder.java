package dev.weir.spring.keys;

import dev.weir.spring.web.RequestView;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Turns a {@link Syntax} tree into the {@link Node}s that compute it, naming arguments by position
 * and checking what the declared types of the arguments make certain. Each node gets a static type:
 * the declared type of an argument, the return type of an accessor, {@code String} for text, and
 * {@code Object} where nothing is known. A member or index that cannot work on that type is refused
 * here: any member of the request view but its five reads, anything but the allowed methods of a
 * {@code String}, a member of a platform or framework type, an accessor a final class or record does
 * not have. Where the type leaves the answer open ({@code Object}, an interface or a class that is
 * not final), the node decides per call, by the same rules ({@link MemberNode}).
 *
 * <p>Binding recurses along the tree, whose depth the parser bounded.
 */
final class KeyBinder {

  private static final Pattern POSITIONAL = Pattern.compile("[pa](\\d{1,3})");

  private final String resource;
  private final String source;
  private final @Nullable KeyArguments arguments;
  /** How many of the values {@code #args} holds: -1 for all, else the first ones (a cost expression's). */
  private final int argumentCount;

  private KeyBinder(String resource, String source, @Nullable KeyArguments arguments, int argumentCount) {
    this.resource = resource;
    this.source = source;
    this.arguments = arguments;
    this.argumentCount = argumentCount;
  }

  /**
   * Binds {@code syntax}, read from {@code source}, for the calls of {@code resource}.
   *
   * @param arguments the names and types of the resource's arguments; null when they are not known
   *     (then they are named by position only, and every type is {@code Object})
   * @throws IllegalArgumentException with the reason, when the expression cannot be a key
   */
  static Node bind(String resource, String source, Syntax syntax, @Nullable KeyArguments arguments) {
    return bind(resource, source, syntax, arguments, -1);
  }

  /**
   * As {@link #bind(String, String, Syntax, KeyArguments)}, with {@code #args} holding only the first
   * {@code argumentCount} values (-1: all): a cost expression's values end with the call's result,
   * which is not an argument.
   */
  static Node bind(String resource, String source, Syntax syntax, @Nullable KeyArguments arguments,
      int argumentCount) {
    KeyBinder binder = new KeyBinder(resource, source, arguments, argumentCount);
    Typed root = binder.bind(syntax);
    if (root.type != Object.class && RequestView.class.isAssignableFrom(root.type)) {
      throw binder.refused(syntax, "the key would be the request view itself, so every request would count apart: use"
          + " one of its reads, e.g. #request.getHeader('X-Api-Key')");
    }
    if (root.node instanceof Node.AllArguments && arguments != null && arguments.types().contains(RequestView.class)) {
      throw binder.refused(syntax, "a route's #args holds the request view: name #principal or one of the request's reads,"
          + " e.g. #request.getHeader('X-Api-Key')");
    }
    return root.node;
  }

  /** Every name {@code syntax} reads ({@code #name}), in the order written. */
  static void names(Syntax syntax, java.util.function.Consumer<Syntax.Name> each) {
    if (syntax instanceof Syntax.Name name) {
      each.accept(name);
    } else if (syntax instanceof Syntax.Group group) {
      names(group.inner(), each);
    } else if (syntax instanceof Syntax.Concat concat) {
      concat.parts().forEach(part -> names(part, each));
    } else if (syntax instanceof Syntax.Elvis elvis) {
      elvis.alternatives().forEach(alternative -> names(alternative, each));
    } else if (syntax instanceof Syntax.Member member) {
      names(member.receiver(), each);
      if (member.arguments() != null) {
        member.arguments().forEach(argument -> names(argument, each));
      }
    } else if (syntax instanceof Syntax.Index index) {
      names(index.receiver(), each);
      names(index.key(), each);
    }
  }

  /** Whether {@code name} is a position ({@code p0}, {@code a12}); -1 when it is not one, else the position. */
  static int position(String name) {
    Matcher positional = POSITIONAL.matcher(name);
    return positional.matches() ? Integer.parseInt(positional.group(1)) : -1;
  }

  /** Whether {@code syntax} names its arguments by position only ({@code #p0}, {@code #a0}, {@code #args}). */
  static boolean onlyPositional(Syntax syntax) {
    if (syntax instanceof Syntax.Name name) {
      return POSITIONAL.matcher(name.name()).matches() || name.name().equals("args");
    }
    if (syntax instanceof Syntax.Group group) {
      return onlyPositional(group.inner());
    }
    if (syntax instanceof Syntax.Concat concat) {
      return concat.parts().stream().allMatch(KeyBinder::onlyPositional);
    }
    if (syntax instanceof Syntax.Elvis elvis) {
      return elvis.alternatives().stream().allMatch(KeyBinder::onlyPositional);
    }
    if (syntax instanceof Syntax.Member member) {
      return onlyPositional(member.receiver())
          && (member.arguments() == null || member.arguments().stream().allMatch(KeyBinder::onlyPositional));
    }
    if (syntax instanceof Syntax.Index index) {
      return onlyPositional(index.receiver());
    }
    return true;
  }

  /** A node and its static type (boxed; {@code Object} when unknown). */
  private record Typed(Node node, Class<?> type) {
  }

  private Typed bind(Syntax syntax) {
    if (syntax instanceof Syntax.Name name) {
      return name(name);
    }
    if (syntax instanceof Syntax.Text text) {
      return new Typed(new Node.Constant(text.value(), source, text.start(), text.end()), String.class);
    }
    if (syntax instanceof Syntax.Whole whole) {
      return new Typed(new Node.Constant(whole.value(), source, whole.start(), whole.end()), Integer.class);
    }
    if (syntax instanceof Syntax.Null nothing) {
      return new Typed(new Node.Constant(null, source, nothing.start(), nothing.end()), Object.class);
    }
    if (syntax instanceof Syntax.Group group) {
      return bind(group.inner());
    }
    if (syntax instanceof Syntax.Concat concat) {
      List<Node> parts = new ArrayList<>();
      for (Syntax part : concat.parts()) {
        Typed bound = bind(part);
        checkJoinable(part, bound.type);
        parts.add(bound.node);
      }
      return new Typed(new Node.Concat(parts, source, concat.start(), concat.end()), String.class);
    }
    if (syntax instanceof Syntax.Elvis elvis) {
      List<Node> alternatives = new ArrayList<>();
      Class<?> common = null;
      for (Syntax alternative : elvis.alternatives()) {
        Typed bound = bind(alternative);
        alternatives.add(bound.node);
        common = common == null || common == bound.type ? bound.type : Object.class;
      }
      return new Typed(new Node.Elvis(alternatives, source, elvis.start(), elvis.end()),
          common == null ? Object.class : common);
    }
    if (syntax instanceof Syntax.Member member) {
      return member(member);
    }
    return index((Syntax.Index) syntax);
  }

  private Typed name(Syntax.Name syntax) {
    String name = syntax.name();
    List<String> names = arguments == null ? null : arguments.names();
    int index = names == null ? -1 : names.indexOf(name);
    if (index >= 0) {
      return argument(index, syntax);
    }
    if (name.equals("args")) {
      return new Typed(new Node.AllArguments(source, syntax.start(), syntax.end(), argumentCount), Object[].class);
    }
    Matcher positional = POSITIONAL.matcher(name);
    if (positional.matches()) {
      int at = Integer.parseInt(positional.group(1));
      if (names != null && at >= names.size()) {
        throw new IllegalArgumentException("#" + name + " is past the arguments of '" + resource + "', which has "
            + names.size() + ": " + names);
      }
      return argument(at, syntax);
    }
    if (name.equals("root") || name.equals("this")) {
      throw new IllegalArgumentException("#" + name + " is SpEL's, not the key language's: name the arguments"
          + " (#name, #p0, #a0, #args)");
    }
    throw new IllegalArgumentException("#" + name + " is no argument of '" + resource + "': " + (names == null
        ? "it is no @RateLimited method or route, so its arguments are named by position only (#p0, #a0, #args)"
        : "its arguments are " + names + " (or #p0.., #a0.., #args)"));
  }

  private Typed argument(int index, Syntax.Name syntax) {
    Class<?> type = arguments == null ? Object.class : boxed(arguments.types().get(index));
    return new Typed(new Node.Argument(index, source, syntax.start(), syntax.end()), type);
  }

  private Typed member(Syntax.Member syntax) {
    Typed receiver = bind(syntax.receiver());
    List<Node> argumentNodes = null;
    List<Class<?>> argumentTypes = new ArrayList<>();
    if (syntax.arguments() != null) {
      argumentNodes = new ArrayList<>();
      for (Syntax argument : syntax.arguments()) {
        Typed bound = bind(argument);
        argumentNodes.add(bound.node);
        argumentTypes.add(bound.type);
      }
    }
    MemberNode node = new MemberNode(receiver.node, syntax.name(), syntax.nullSafe(), argumentNodes, source,
        syntax.start(), syntax.end());
    Class<?> type = receiver.type;
    String receiverText = source.substring(syntax.receiver().start(), syntax.receiver().end());
    if (type != Object.class && RequestView.class.isAssignableFrom(type)) {
      MemberNode.ViewMethod read = node.viewMethod();
      if (read == null) {
        throw refused(syntax, MemberNode.ViewMethod.refusal(receiverText, syntax.name()));
      }
      requireMaybe(syntax, argumentTypes, String.class, "a text (the name)");
      return new Typed(node, String.class);
    }
    if (type == String.class) {
      MemberNode.StringMethod method = node.stringMethod();
      if (method == null) {
        throw refused(syntax, receiverText + " is a String, whose methods here are " + MemberNode.StringMethod.LIST
            + (syntax.arguments() == null && syntax.name().equals("length") ? " (write length())" : ""));
      }
      requireMaybe(syntax, argumentTypes, Integer.class, "a whole number");
      return new Typed(node, method == MemberNode.StringMethod.LENGTH ? Integer.class : String.class);
    }
    if (type.isArray()) {
      if (!node.isArrayLength()) {
        throw refused(syntax, receiverText + " is an array, whose only member is .length");
      }
      return new Typed(node, Integer.class);
    }
    if (type == Object.class) {
      return new Typed(node, Object.class); // decided per call
    }
    if (Accessors.isPlatform(type)) {
      if (type.isAssignableFrom(String.class) && node.stringMethod() != null) {
        return new Typed(node, Object.class); // a CharSequence may be a String
      }
      throw refused(syntax, receiverText + " is a " + type.getName() + ", a platform or framework type: a key reads"
          + " no member of it (only String's methods, an array's length and indexes of lists and maps)");
    }
    if (syntax.arguments() != null && !syntax.arguments().isEmpty()) {
      throw refused(syntax, "only String's substring and the request's getHeader and getParameter take arguments;"
          + " an accessor takes none");
    }
    Accessors.Access access = Accessors.resolve(type, syntax.name(), syntax.arguments() != null);
    if (access instanceof Accessors.Getter getter) {
      if (Modifier.isFinal(type.getModifiers())) {
        node.remember(type, access);
      }
      return new Typed(node, boxed(getter.type()));
    }
    if (Modifier.isFinal(type.getModifiers())) {
      throw refused(syntax, ((Accessors.Refusal) access).reason());
    }
    return new Typed(node, Object.class); // a subclass may have it: decided per call
  }

  private Typed index(Syntax.Index syntax) {
    Typed receiver = bind(syntax.receiver());
    Object key = syntax.key() instanceof Syntax.Text text ? text.value() : (Object) ((Syntax.Whole) syntax.key()).value();
    Node node = new Node.Index(receiver.node, key, source, syntax.start(), syntax.end());
    Class<?> type = receiver.type;
    String receiverText = source.substring(syntax.receiver().start(), syntax.receiver().end());
    if (Map.class.isAssignableFrom(type)) {
      return new Typed(node, Object.class);
    }
    if (type.isArray() || List.class.isAssignableFrom(type)) {
      if (key instanceof String) {
        throw refused(syntax, receiverText + " is " + (type.isArray() ? "an array" : "a list")
            + ", indexed by a whole number, not a text");
      }
      return new Typed(node, type.isArray() ? boxed(type.getComponentType()) : Object.class);
    }
    boolean mayBeListOrMap = type.isAssignableFrom(List.class) || type.isAssignableFrom(Map.class)
        || !Accessors.isPlatform(type) && !Modifier.isFinal(type.getModifiers());
    if (!mayBeListOrMap) {
      throw refused(syntax, receiverText + " is a " + type.getName() + ": [...] applies to arrays, lists and maps"
          + " only");
    }
    return new Typed(node, Object.class);
  }

  /** Refuses a part of {@code +} whose type cannot be joined as text. */
  private void checkJoinable(Syntax part, Class<?> type) {
    String text = source.substring(part.start(), part.end());
    if (type != Object.class && RequestView.class.isAssignableFrom(type)) {
      throw refused(part, text + " is the request view: join one of its reads, e.g. #request.getHeader('X-Api-Key')");
    }
    boolean many = type.isArray() || Collection.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type);
    boolean joinable = !many && (!Accessors.isPlatform(type) || type.isAssignableFrom(String.class)
        || type.isAssignableFrom(Integer.class) || Node.isJoinableValue(type) || type.isEnum() || type == Enum.class);
    if (!joinable) {
      throw refused(part, text + " is a " + type.getTypeName() + ", which + does not join (it joins text, numbers,"
          + " booleans, characters, enum constants, UUIDs and the application's objects)");
    }
  }

  /** Refuses arguments whose static types cannot be {@code expected}. */
  private void requireMaybe(Syntax.Member syntax, List<Class<?>> types, Class<?> expected, String what) {
    List<Syntax> given = syntax.arguments() == null ? List.of() : syntax.arguments();
    for (int i = 0; i < types.size(); i++) {
      Class<?> type = types.get(i);
      boolean whole = expected == Integer.class && (type == Long.class || type == Short.class || type == Byte.class);
      if (!type.isAssignableFrom(expected) && !whole) {
        throw refused(given.get(i), "argument " + (i + 1) + " of " + syntax.name() + " must be " + what + ", and this"
            + " is a " + type.getSimpleName());
      }
    }
  }

  /** A refusal naming the refused part of the expression and where it is. */
  private IllegalArgumentException refused(Syntax syntax, String reason) {
    int at = syntax instanceof Syntax.Member member ? member.at()
        : syntax instanceof Syntax.Index index ? index.at() : syntax.start();
    return new IllegalArgumentException(source.substring(syntax.start(), syntax.end()) + " (at position " + at
        + "): " + reason);
  }

  private static Class<?> boxed(Class<?> type) {
    if (!type.isPrimitive()) {
      return type;
    }
    if (type == int.class) {
      return Integer.class;
    }
    if (type == long.class) {
      return Long.class;
    }
    if (type == boolean.class) {
      return Boolean.class;
    }
    if (type == double.class) {
      return Double.class;
    }
    if (type == float.class) {
      return Float.class;
    }
    if (type == short.class) {
      return Short.class;
    }
    if (type == byte.class) {
      return Byte.class;
    }
    return type == char.class ? Character.class : Void.class;
  }
}
