package dev.weir.spring.autoconfigure.client;

import dev.weir.rule.RuleViolation;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.client.ClientRoute;
import dev.weir.spring.properties.ClientRouteProperties;
import dev.weir.spring.properties.WeirProperties;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The routes of {@code weir.client.routes}, checked: every problem stops the start with its property
 * path ({@code weir.client.routes[0].url}).
 */
final class ClientRoutes {

  private static final Set<String> HTTP_METHODS =
      Set.of("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE");

  /** A resource name's bound, as for the names rules give. */
  private static final int MAX_RESOURCE_LENGTH = 512;

  private ClientRoutes() {
  }

  /**
   * Returns the routes of {@code properties}, in order.
   *
   * @throws InvalidWeirConfigurationException naming every invalid value
   */
  static List<ClientRoute> of(WeirProperties properties) {
    List<ClientRoute> routes = new ArrayList<>();
    List<RuleViolation> violations = new ArrayList<>();
    List<ClientRouteProperties> given = properties.getClient().getRoutes();
    for (int i = 0; i < given.size(); i++) {
      ClientRouteProperties route = given.get(i);
      String at = "weir.client.routes[" + i + "].";
      int before = violations.size();
      String resource = route.getResource();
      if (resource == null || resource.isBlank()) {
        violations.add(new RuleViolation(at + "resource", "is required: the resource the matched requests are"
            + " guarded as"));
      } else if (resource.length() > MAX_RESOURCE_LENGTH || !resource.chars().allMatch(c -> c >= 0x20 && c != 0x7f)) {
        violations.add(new RuleViolation(at + "resource", "must be at most " + MAX_RESOURCE_LENGTH
            + " printable characters"));
      }
      Set<String> methods = new LinkedHashSet<>();
      for (int j = 0; j < route.getMethods().size(); j++) {
        String method = route.getMethods().get(j);
        String upper = method == null ? "" : method.strip().toUpperCase(Locale.ROOT);
        if (!HTTP_METHODS.contains(upper)) {
          violations.add(new RuleViolation(at + "methods[" + j + "]", "must be one of "
              + new java.util.TreeSet<>(HTTP_METHODS) + ", was '" + method + "'"));
        }
        methods.add(upper);
      }
      ClientRoute parsed = null;
      String url = route.getUrl();
      if (url == null || url.isBlank()) {
        violations.add(new RuleViolation(at + "url", "is required: scheme://host[:port] and a path pattern, such as"
            + " https://api.example.com/v1/**"));
      } else {
        try {
          parsed = ClientRoute.parse(resource == null ? "" : resource, url.strip(), methods);
        } catch (IllegalArgumentException invalid) {
          violations.add(new RuleViolation(at + "url", String.valueOf(invalid.getMessage())));
        }
      }
      if (parsed != null && violations.size() == before) {
        routes.add(parsed);
      }
    }
    if (!violations.isEmpty()) {
      throw new InvalidWeirConfigurationException(violations);
    }
    return List.copyOf(routes);
  }
}
