package dev.weir.spring.actuate;

import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@link WeirEndpoint} over HTTP: {@code POST /actuator/weir/{resource}} answers {@code 200}
 * with the resource as it is afterwards, or {@code 400} with {@code title}, {@code status},
 * {@code detail}, {@code resource} and {@code violations} (each a {@code field} and a
 * {@code message}) when the rules are refused, and then nothing changed.
 */
@EndpointWebExtension(endpoint = WeirEndpoint.class)
public final class WeirEndpointWebExtension {

  private final WeirEndpoint endpoint;

  /**
   * Creates the extension.
   *
   * @param endpoint the endpoint extended
   */
  public WeirEndpointWebExtension(WeirEndpoint endpoint) {
    this.endpoint = endpoint;
  }

  /** Replaces the rules of the kinds given of one resource; see {@link WeirEndpoint}. */
  @WriteOperation
  public WebEndpointResponse<OperationResponseBody> replaceRules(SecurityContext securityContext,
      @Selector String resource, @Nullable String rules) {
    WeirEndpoint.Replacement replacement = endpoint.replace(securityContext, resource, rules);
    if (replacement.refused() != null) {
      return new WebEndpointResponse<>(replacement.refused(), WebEndpointResponse.STATUS_BAD_REQUEST);
    }
    return new WebEndpointResponse<>(replacement.done(), WebEndpointResponse.STATUS_OK);
  }
}
