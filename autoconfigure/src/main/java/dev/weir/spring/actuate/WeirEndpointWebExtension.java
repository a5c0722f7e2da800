package dev.weir.spring.actuate;

import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
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

  /** Replaces the rules of the kinds given of one resource; see {@link WeirEndpoint}. */
  @WriteOperation
  public WebEndpointResponse<OperationResponseBody> replaceRules(SecurityContext securityContext,
      @Selector String resource, @Nullable String rules) {
    WeirEndpoint.Replacement replacement = endpoint.replace(securityContext, resource, rules);
    if (replacement.refused() != null) {
      return new WebEndpointResponse<>(replacement.refused(), replacement.refused().status());
    }
    return new WebEndpointResponse<>(replacement.done(), WebEndpointResponse.STATUS_OK);
  }
}
