package dev.weir.spring.actuate;

import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@link WeirEndpoint} over HTTP.
 *
 * <ul>
 *   <li>{@code GET /actuator/weir} answers JSON, or, to a client that asks for {@code text/html} (a
 *       browser), the live dashboard page ({@link WeirEndpointFormat}). Both are the same operation,
 *       so the page has the exposure, access and security of the JSON: whoever cannot read one cannot
 *       read the other. The page is a single file in the jar, with its script, style and charts
 *       inline; it reads the JSON of this same URL once a second and, when the write operation is
 *       open, posts rule changes to {@code /actuator/weir/{resource}}. When it is closed, the page
 *       says so and offers no form.
 *   <li>{@code POST /actuator/weir/{resource}} answers {@code 200} with the resource as it is
 *       afterwards, or {@code 400} with {@code title}, {@code status}, {@code detail},
 *       {@code resource} and {@code violations} (each a {@code field} and a {@code message}) when the
 *       rules are refused, and then nothing changed; or {@code 409} with the same body when, with
 *       {@code weir.rules.write-back}, the rule file kept changing under the write (an editor saving
 *       it), and then too nothing changed: the same write may be tried again.
 * </ul>
 */
@EndpointWebExtension(endpoint = WeirEndpoint.class)
public final class WeirEndpointWebExtension {

  /** The path segment of the fleet's operations, {@code /actuator/weir/fleet}. */
  static final String FLEET = "fleet";

  private final WeirEndpoint endpoint;
  private final BooleanSupplier writesOpen;
  private final DashboardPage page = new DashboardPage();

  /**
   * Creates the extension.
   *
   * @param endpoint the endpoint extended
   * @param writesOpen tells whether the write operation is open
   *     ({@code management.endpoint.weir.access=unrestricted}), asked on each page served
   */
  public WeirEndpointWebExtension(WeirEndpoint endpoint, BooleanSupplier writesOpen) {
    this.endpoint = endpoint;
    this.writesOpen = writesOpen;
  }

  /** Returns every resource as {@link WeirEndpoint#weir()} does, or the dashboard page. */
  @ReadOperation(producesFrom = WeirEndpointFormat.class)
  public WebEndpointResponse<Object> weir(WeirEndpointFormat format) {
    if (format == WeirEndpointFormat.HTML) {
      return new WebEndpointResponse<>(page.render(writesOpen.getAsBoolean()), format);
    }
    return new WebEndpointResponse<>(endpoint.weir(), format);
  }

  /**
   * Replaces the rules of the kinds given of one resource; see {@link WeirEndpoint}. With the rules
   * store, publishes them as a new version of the fleet's rules instead: {@code 200} with
   * {@code version}, {@code 409} when {@code ifMatch} (the request's {@code If-Match}, handed on by
   * {@link WeirEndpointRequestBodyAdvice} and {@link WeirEndpointWebFilter}) is no longer the
   * current version, {@code 503} when the store is unreachable; nothing changed on a refusal.
   */
  @WriteOperation
  public WebEndpointResponse<Object> replaceRules(SecurityContext securityContext,
      @Selector String resource, @Nullable String rules, @Nullable String ifMatch) {
    WeirEndpoint.Replacement replacement = endpoint.replace(securityContext, resource, rules, ifMatch);
    if (replacement.refused() != null) {
      return new WebEndpointResponse<>(replacement.refused(), replacement.refused().status());
    }
    FleetRules.Outcome published = replacement.published();
    if (published != null) {
      return new WebEndpointResponse<>(published.body(), published.status());
    }
    return new WebEndpointResponse<>(replacement.done(), WebEndpointResponse.STATUS_OK);
  }

  /**
   * Returns one resource as {@link WeirEndpoint#resource} does (404 when unknown); with the rules
   * store, {@code fleet} is the fleet view instead: {@code version}, {@code updatedAt},
   * {@code updatedBy}, {@code instances} ({@code id}, {@code host}, {@code version},
   * {@code lastSeen}, {@code error}) and {@code resources} (the traffic summed over the live
   * instances, when the application has a {@code FleetTraffic}); 503 while Redis is unreachable.
   */
  @ReadOperation
  public WebEndpointResponse<Object> resource(@Selector String resource) {
    FleetRules fleet = endpoint.fleet();
    if (fleet != null && FLEET.equals(resource)) {
      return answer(fleet.view());
    }
    WeirEndpoint.ResourceDescriptor found = endpoint.resource(resource);
    return found == null ? new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND)
        : new WebEndpointResponse<>(found, WebEndpointResponse.STATUS_OK);
  }

  /**
   * With the rules store, {@code GET fleet/history}: the versions kept, newest first, each with
   * {@code version}, {@code updatedAt}, {@code updatedBy} and {@code change} (what changed, per
   * resource). 404 for any other path, and without the store.
   */
  @ReadOperation
  public WebEndpointResponse<Object> fleetHistory(@Selector String fleetPath, @Selector String historyPath) {
    FleetRules fleet = endpoint.fleet();
    if (fleet == null || !FLEET.equals(fleetPath) || !"history".equals(historyPath)) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    return answer(fleet.history());
  }

  /**
   * With the rules store, {@code POST fleet/rollback/{version}}: publishes the rules of that version
   * as a new version ({@code 200} with {@code version}; {@code 404} when the store no longer keeps
   * it; {@code 503} when the store is unreachable). 404 for any other path, and without the store.
   */
  @WriteOperation
  public WebEndpointResponse<Object> rollback(SecurityContext securityContext, @Selector String fleetPath,
      @Selector String rollbackPath, @Selector String version) {
    FleetRules fleet = endpoint.fleet();
    if (fleet == null || !FLEET.equals(fleetPath) || !"rollback".equals(rollbackPath)) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    Long number = IfMatch.version(version);
    if (number == null || number < 1) {
      return answer(FleetRules.Outcome.problem(404, "Not Found", "a version is a number from 1, was '"
          + (version.length() > 40 ? version.substring(0, 40) + "..." : version) + "'", null));
    }
    java.security.Principal principal = securityContext.getPrincipal();
    return answer(fleet.rollback(principal != null ? principal.getName() : null, number));
  }

  private static WebEndpointResponse<Object> answer(FleetRules.Outcome outcome) {
    return new WebEndpointResponse<>(outcome.body(), outcome.status());
  }
}
