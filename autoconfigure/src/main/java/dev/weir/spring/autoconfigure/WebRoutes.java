package dev.weir.spring.autoconfigure;

import dev.weir.rule.RuleViolation;
import dev.weir.spring.properties.RouteProperties;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.web.Route;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * The routes of {@code weir.web.routes}, for the Spring MVC and WebFlux auto-configurations. The
 * properties were validated with the engine; a path that is no valid {@link PathPattern} stops the
 * start here, with its property path.
 */
public final class WebRoutes {

  private WebRoutes() {
  }

  /**
   * Returns the routes of {@code properties}, in order.
   *
   * @throws InvalidWeirConfigurationException when a path is no valid path pattern
   */
  public static List<Route> of(WeirProperties properties) {
    List<Route> routes = new ArrayList<>();
    List<RuleViolation> violations = new ArrayList<>();
    List<RouteProperties> given = properties.getWeb().getRoutes();
    for (int i = 0; i < given.size(); i++) {
      RouteProperties route = given.get(i);
      PathPattern pattern;
      try {
        pattern = PathPatternParser.defaultInstance.parse(String.valueOf(route.getPath()));
      } catch (PatternParseException invalid) {
        violations.add(new RuleViolation("weir.web.routes[" + i + "].path", "is no valid path pattern: "
            + invalid.toDetailedString().replace('\n', ' ')));
        continue;
      }
      Set<String> methods = route.getMethods().stream().map(m -> m.strip().toUpperCase(Locale.ROOT))
          .collect(Collectors.toSet());
      Map<String, String> headers = new LinkedHashMap<>();
      route.getHeaders().forEach((name, value) -> headers.put(name, value));
      routes.add(new Route(String.valueOf(route.getResource()), pattern, methods, headers, route.getPermits()));
    }
    if (!violations.isEmpty()) {
      throw new InvalidWeirConfigurationException(violations);
    }
    return List.copyOf(routes);
  }
}
