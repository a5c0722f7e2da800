package dev.weir.spring.actuate;

import org.springframework.boot.actuate.endpoint.ApiVersion;
import org.springframework.boot.actuate.endpoint.Producible;
import org.springframework.util.MimeType;
import org.springframework.util.MimeTypeUtils;

/**
 * What {@code GET /actuator/weir} answers, chosen from the request's {@code Accept} header by Spring
 * Boot's content negotiation for endpoints: JSON in the actuator's own media type when the client
 * asks for nothing in particular ({@code *}{@code /*}, or no header), plain {@code application/json}
 * when asked, and the live dashboard page when the client names {@code text/html}, as a browser does.
 *
 * <p>When a request accepts several, the constant declared last among those it accepts wins (Spring
 * Boot's rule for {@link Producible}): a browser's {@code text/html,...,*}{@code /*;q=0.8} gets the
 * page, and a JSON client's {@code application/json, *}{@code /*} gets JSON, never the page.
 */
public enum WeirEndpointFormat implements Producible<WeirEndpointFormat> {

  /** The actuator's JSON media type of API version 2. */
  ACTUATOR_V2_JSON(ApiVersion.V2.getProducedMimeType()),

  /** The actuator's JSON media type of API version 3: the default. */
  ACTUATOR_V3_JSON(ApiVersion.V3.getProducedMimeType()),

  /** {@code application/json}. */
  JSON(MimeTypeUtils.APPLICATION_JSON),

  /** The dashboard page, {@code text/html} in UTF-8. */
  HTML(MimeTypeUtils.parseMimeType("text/html;charset=UTF-8"));

  private final MimeType mimeType;

  WeirEndpointFormat(MimeType mimeType) {
    this.mimeType = mimeType;
  }

  @Override
  public MimeType getProducedMimeType() {
    return mimeType;
  }

  @Override
  public boolean isDefault() {
    return this == ACTUATOR_V3_JSON;
  }
}
