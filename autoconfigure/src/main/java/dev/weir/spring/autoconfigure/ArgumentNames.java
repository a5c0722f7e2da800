package dev.weir.spring.autoconfigure;

import dev.weir.spring.aop.RateLimitedAdvisor;
import dev.weir.spring.properties.RouteProperties;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.web.Route;
import java.lang.reflect.Method;
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
 * The names key expressions give the arguments of a resource's calls: a route's are
 * {@link Route#ARGUMENT_NAMES}; an annotated method's are its parameter names (compiled with
 * {@code -parameters}, as Spring Boot's build plugins do). Several methods of one resource must
 * name their arguments alike, and a resource cannot be both a route and a method, else the key
 * expressions of its rules would mean different things on different calls.
 */
final class ArgumentNames implements Function<String, @Nullable List<String>> {

  private final Set<String> routes = new HashSet<>();
  private final ObjectProvider<RateLimitedAdvisor> advisor;
  private final ParameterNameDiscoverer discoverer = new DefaultParameterNameDiscoverer();

  ArgumentNames(WeirProperties properties, ObjectProvider<RateLimitedAdvisor> advisor) {
    for (RouteProperties route : properties.getWeb().getRoutes()) {
      if (route.getResource() != null) {
        routes.add(route.getResource());
      }
    }
    this.advisor = advisor;
  }

  @Override
  public @Nullable List<String> apply(String resource) {
    RateLimitedAdvisor rateLimited = advisor.getIfUnique();
    List<Method> methods = rateLimited == null ? List.of() : rateLimited.methods(resource);
    if (routes.contains(resource)) {
      if (!methods.isEmpty()) {
        throw new IllegalArgumentException("'" + resource + "' is both a route (weir.web.routes) and the resource of "
            + methods.get(0) + ": give them different names, their calls have different arguments");
      }
      return Route.ARGUMENT_NAMES;
    }
    List<String> names = null;
    Method first = null;
    for (Method method : methods) {
      String[] found = discoverer.getParameterNames(method);
      List<String> these = found != null ? Arrays.asList(found) : positions(method.getParameterCount());
      if (names == null) {
        names = these;
        first = method;
      } else if (!names.equals(these)) {
        throw new IllegalArgumentException("'" + resource + "' is the resource of " + first + " and " + method
            + ", whose arguments are named " + names + " and " + these + ": a key expression cannot mean both");
      }
    }
    return names;
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
