package dev.weir.spring.autoconfigure.actuate;

import dev.weir.spring.actuate.WeirEndpointWebExtension;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.env.Environment;

/**
 * Says once at start, at INFO, that the dashboard page exists and how to expose it, in a web
 * application with the actuator whose {@code weir} endpoint is not exposed over HTTP: a request for
 * the page then answers 404, and nothing in that answer can say why. Silent when the endpoint is
 * exposed, and when its access is {@code none} (turned off on purpose).
 */
final class WeirEndpointExposureHint implements SmartInitializingSingleton {

  private static final Log logger = LogFactory.getLog(WeirEndpointExposureHint.class);

  private final ListableBeanFactory beans;
  private final Environment environment;

  WeirEndpointExposureHint(ListableBeanFactory beans, Environment environment) {
    this.beans = beans;
    this.environment = environment;
  }

  @Override
  public void afterSingletonsInstantiated() {
    String message = message();
    if (message != null) {
      logger.info(message);
    }
  }

  /** The line to log, or null when there is nothing to say. */
  String message() {
    if (beans.getBeanNamesForType(WeirEndpointWebExtension.class, false, false).length > 0
        || "none".equalsIgnoreCase(environment.getProperty("management.endpoint.weir.access", "").trim())) {
      return null;
    }
    String base = environment.getProperty("management.endpoints.web.base-path", "/actuator");
    return "Weir's dashboard page and endpoint (" + base + "/weir) are not exposed over HTTP, so they answer 404."
        + " To open them, add weir to management.endpoints.web.exposure.include (e.g. health,weir); to change rules"
        + " from the page too, set management.endpoint.weir.access=unrestricted (keep it behind Spring Security)."
        + " See docs/dashboard.md.";
  }
}
