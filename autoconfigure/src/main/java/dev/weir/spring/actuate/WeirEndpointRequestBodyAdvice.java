package dev.weir.spring.actuate;

import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
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
import tools.jackson.databind.node.ObjectNode;

/**
 * Lets {@code POST /actuator/weir/{resource}} take its rules as JSON lists, as in
 * {@code {"flow": [{"count": 5}]}}, on Spring MVC.
 *
 * <p>Spring Boot reads the body of an actuator write operation as a map of strings, so a list in it
 * would be refused before {@link WeirEndpoint} sees it. For that one operation only, this advice
 * turns each list or object at the top of the body into its JSON text; {@link WeirEndpoint} reads
 * that text back. Bodies of other requests and operations are left alone, and a body that is not
 * a JSON object is passed on untouched, to be refused as before.
 */
@ControllerAdvice
public final class WeirEndpointRequestBodyAdvice extends RequestBodyAdviceAdapter {

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
    if (!Map.class.equals(methodParameter.getParameterType())) {
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
      Class<? extends HttpMessageConverter<?>> converterType) throws IOException {
    byte[] body = inputMessage.getBody().readAllBytes();
    return new Message(inputMessage.getHeaders(), stringifyLists(body));
  }

  private static byte[] stringifyLists(byte[] body) {
    JsonNode tree;
    try {
      tree = JSON.readTree(body);
    } catch (JacksonException ex) {
      return body;
    }
    if (!(tree instanceof ObjectNode object)) {
      return body;
    }
    for (Map.Entry<String, JsonNode> property : object.properties()) {
      if (property.getValue().isContainer()) {
        property.setValue(object.textNode(JSON.writeValueAsString(property.getValue())));
      }
    }
    return JSON.writeValueAsBytes(object);
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
