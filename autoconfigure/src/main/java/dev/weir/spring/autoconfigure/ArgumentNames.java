package dev.weir.spring.autoconfigure;

import dev.weir.spring.aop.RateLimitedAdvisor;
import dev.weir.spring.keys.KeyArguments;
import dev.weir.spring.properties.ClientRouteProperties;
import dev.weir.spring.properties.RouteProperties;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.web.Route;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;

/**
 * The names key expressions give the arguments of a resource's calls, with their declared types: a
 * route's, inbound ({@code weir.web.routes}) or outgoing ({@code weir.client.routes}), are
 * {@link Route#ARGUMENT_NAMES} ({@link Route#ARGUMENT_TYPES}); an annotated method's are
 * its parameter names (compiled with {@code -parameters}, as Spring Boot's build plugins do) and
 * types. Several methods of one resource must name their arguments alike (a position whose types
 * differ between them is typed {@code Object}), and a resource cannot be both a route and a method,
 * else the key expressions of its rules would mean different things on different calls.
 */
final class ArgumentNames implements Function<String, @Nullable KeyArguments> {

  private final Set<String> routes = new HashSet<>();
  private final ObjectProvider<RateLimitedAdvisor> advisor;
  private final ParameterNameDiscoverer discoverer = new DefaultParameterNameDiscoverer();

  ArgumentNames(WeirProperties properties, ObjectProvider<RateLimitedAdvisor> advisor) {
    for (RouteProperties route : properties.getWeb().getRoutes()) {
      if (route.getResource() != null) {
        routes.add(route.getResource());
      }
    }
    for (ClientRouteProperties route : properties.getClient().getRoutes()) { // outgoing: the same two arguments
      if (route.getResource() != null) {
        routes.add(route.getResource());
      }
    }
    this.advisor = advisor;
    this.aiResource = org.springframework.util.ClassUtils.isPresent("org.springframework.ai.chat.client.ChatClient",
        ArgumentNames.class.getClassLoader()) ? properties.getAi().getResource() : null;
  }

  /** The resource of ChatClient calls when Spring AI is present, else null. */
  private final @Nullable String aiResource;

  @Override
  public @Nullable KeyArguments apply(String resource) {
    RateLimitedAdvisor rateLimited = advisor.getIfUnique();
    List<Method> methods = rateLimited == null ? List.of() : rateLimited.methods(resource);
    if (resource.equals(aiResource)) { // ChatClient calls: [key, request, principal]
      return new KeyArguments(List.of("key", "request", "principal"),
          List.of(String.class, dev.weir.spring.web.RequestView.class, String.class));
    }
    if (routes.contains(resource)) {
      if (!methods.isEmpty()) {
        throw new IllegalArgumentException("'" + resource + "' is both a route (weir.web.routes or"
            + " weir.client.routes) and the resource of " + methods.get(0) + ": give them different names, their"
            + " calls have different arguments");
      }
      return new KeyArguments(Route.ARGUMENT_NAMES, Route.ARGUMENT_TYPES);
    }
    List<String> names = null;
    List<Class<?>> types = null;
    Method first = null;
    for (Method method : methods) {
      String[] found = discoverer.getParameterNames(method);
      List<String> these = found != null ? Arrays.asList(found) : positions(method.getParameterCount());
      if (names == null) {
        names = these;
        types = new ArrayList<>(Arrays.asList(method.getParameterTypes()));
        first = method;
      } else if (!names.equals(these)) {
        throw new IllegalArgumentException("'" + resource + "' is the resource of " + first + " and " + method
            + ", whose arguments are named " + names + " and " + these + ": a key expression cannot mean both");
      } else {
        Class<?>[] theirs = method.getParameterTypes();
        for (int i = 0; i < theirs.length; i++) {
          if (types.get(i) != theirs[i]) {
            types.set(i, Object.class); // declared differently: decided per call
          }
        }
      }
    }
    return names == null ? null : new KeyArguments(names, types);
  }

  /** Names that match no reference: a method compiled without parameter names is read by position only. */
  private static List<String> positions(int count) {
    String[] names = new String[count];
    for (int i = 0; i < count; i++) {
      names[i] = "\u0000" + i;
    }
    return Arrays.asList(names);
  }

  /** Whether {@code resource} is the resource of a route. */
  boolean isRoute(String resource) {
    return routes.contains(resource);
  }

  Set<String> routeResources() {
    return Set.copyOf(routes);
  }
}
