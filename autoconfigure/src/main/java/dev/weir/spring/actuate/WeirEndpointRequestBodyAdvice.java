package dev.weir.spring.actuate;

import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Lets {@code POST /actuator/weir/{resource}} take its rules as a JSON object of lists, as in
 * {@code {"flow": [{"count": 5}]}}, on Spring MVC.
 *
 * <p>Spring Boot reads the body of every actuator write operation on Spring MVC as a map of
 * strings ({@code AbstractWebMvcEndpointHandlerMapping.OperationHandler#handle(HttpServletRequest,
 * Map<String, String>)}, through the application's message converters), so a list in it is refused
 * before any operation parameter or endpoint converter sees it; and it merges the keys of the body
 * into the operation's arguments, over the path's {@code {resource}}. For that one operation only,
 * this advice hands Spring Boot a body with one key, {@code rules}, whose value is the JSON text of
 * the object posted, with the query parameters added as keys (they are arguments too, and
 * {@link WeirEndpoint} refuses what is not a kind of rules). A key of the body can then neither be
 * lost nor take the place of the path's resource. Bodies of other requests and operations are left
 * alone, and a body that is not a JSON object is passed on untouched, to be refused as before. So is
 * a body that already is the operation's argument, {@code {"rules": "<the JSON text>"}}: the form
 * every web stack takes (Spring WebFlux reads bodies the same way, without this advice), which the
 * dashboard page posts.
 */
@ControllerAdvice
public final class WeirEndpointRequestBodyAdvice extends RequestBodyAdviceAdapter {

  private static final String ACTUATOR_WEB_PACKAGE = "org.springframework.boot.webmvc.actuate.endpoint.web.";

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Supplier<String> endpointPath;

  /**
   * Creates the advice.
   *
   * @param endpointPath supplies the path of the {@code weir} endpoint below the actuator base path,
   *     {@code weir} unless {@code management.endpoints.web.path-mapping.weir} maps it elsewhere
   */
  public WeirEndpointRequestBodyAdvice(Supplier<String> endpointPath) {
    this.endpointPath = endpointPath;
  }

  @Override
  public boolean supports(MethodParameter methodParameter, Type targetType,
      Class<? extends HttpMessageConverter<?>> converterType) {
    if (!Map.class.equals(methodParameter.getParameterType())
        || !methodParameter.getDeclaringClass().getName().startsWith(ACTUATOR_WEB_PACKAGE)) {
      return false;
    }
    RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
    if (!(attributes instanceof ServletRequestAttributes servlet)) {
      return false;
    }
    HttpServletRequest request = servlet.getRequest();
    Object pattern = request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE);
    return "POST".equals(request.getMethod()) && pattern != null
        && pattern.toString().endsWith("/" + endpointPath.get() + "/{resource}");
  }

  @Override
  public HttpInputMessage beforeBodyRead(HttpInputMessage inputMessage, MethodParameter parameter, Type targetType,
      Class<? extends HttpMessageConverter<?>> converterType) throws java.io.IOException {
    byte[] body = inputMessage.getBody().readAllBytes();
    RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
    Map<String, String[]> query = attributes instanceof ServletRequestAttributes servlet
        ? servlet.getRequest().getParameterMap() : Map.of();
    return new Message(inputMessage.getHeaders(), asOneArgument(body, query));
  }

  private static byte[] asOneArgument(byte[] body, Map<String, String[]> query) {
    JsonNode tree;
    try {
      tree = JSON.readTree(body);
    } catch (JacksonException ex) {
      return body;
    }
    if (!(tree instanceof ObjectNode object)) {
      return body;
    }
    if (object.size() == 1 && object.has("rules") && object.get("rules").isString() && query.isEmpty()) {
      return body; // already the operation's one argument, as every stack takes it (the dashboard posts so)
    }
    query.forEach((name, values) -> {
      if (!object.has(name)) {
        ArrayNode array = object.putArray(name);
        for (String value : values) {
          array.add(value);
        }
      }
    });
    ObjectNode wrapped = JSON.createObjectNode();
    wrapped.put("rules", JSON.writeValueAsString(object));
    return JSON.writeValueAsBytes(wrapped);
  }

  private record Message(HttpHeaders headers, byte[] body) implements HttpInputMessage {

    @Override
    public HttpHeaders getHeaders() {
      return headers;
    }

    @Override
    public InputStream getBody() {
      return new ByteArrayInputStream(body);
    }
  }
}
