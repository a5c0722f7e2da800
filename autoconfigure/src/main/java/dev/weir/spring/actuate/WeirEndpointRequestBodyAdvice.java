package dev.weir.spring.actuate;

import jakarta.servlet.http.HttpServletRequest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Type;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.springframework.core.MethodParameter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpInputMessage;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.mvc.method.annotation.RequestBodyAdviceAdapter;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * Lets {@code POST /actuator/weir/{resource}} take its rules as a JSON object of lists, as in
 * {@code {"flow": [{"count": 5}]}}, on Spring MVC, and answers a body over 1 MiB with {@code 413}
 * ({@link PostedBody}).
 *
 * <p>Spring Boot reads the body of every actuator write operation on Spring MVC as a map of
 * strings ({@code AbstractWebMvcEndpointHandlerMapping.OperationHandler#handle(HttpServletRequest,
 * Map<String, String>)}, through the application's message converters), so a list in it is refused
 * before any operation parameter or endpoint converter sees it; and it merges the keys of the body
 * into the operation's arguments, over the path's {@code {resource}}. For that one operation only,
 * this advice reads the body (at most 1 MiB and a byte, {@link PostedBody#read}; a larger one, or
 * one whose {@code Content-Length} says so, is answered 413 by {@link #tooLarge}) and hands Spring
 * Boot a body with one key, {@code rules}, whose value is {@link PostedBody#rulesArgument}: the
 * JSON text of the object posted, with the query parameters added as keys (they are arguments too,
 * and {@link WeirEndpoint} refuses what is not a kind of rules). A key of the body can then neither
 * be lost nor take the place of the path's resource. A body that is not a JSON object is handed on
 * as its text, so that the endpoint refuses it with the reason; one that already is the operation's
 * argument, {@code {"rules": "<the JSON text>"}} (the dashboard page posts so), as that text.
 * Bodies of other requests and operations are left alone. WebFlux does the same in
 * {@link WeirEndpointWebFilter}.
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
      Class<? extends HttpMessageConverter<?>> converterType) throws IOException {
    if (PostedBody.announcesTooMuch(inputMessage.getHeaders().getContentLength())) {
      throw new PostedBody.TooLargeException();
    }
    byte[] body = PostedBody.read(inputMessage.getBody());
    RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
    Map<String, List<String>> query = new LinkedHashMap<>();
    if (attributes instanceof ServletRequestAttributes servlet) {
      servlet.getRequest().getParameterMap().forEach((name, values) -> query.put(name, List.of(values)));
    }
    ObjectNode argument = JSON.createObjectNode();
    argument.put("rules", PostedBody.rulesArgument(body, query));
    String ifMatch = inputMessage.getHeaders().getFirst(HttpHeaders.IF_MATCH);
    if (ifMatch != null) {
      argument.put("ifMatch", ifMatch); // the version a write to the rules store is based on
    }
    return new Message(inputMessage.getHeaders(), JSON.writeValueAsBytes(argument));
  }

  /**
   * Answers a body over the limit: {@code 413 Content Too Large}, with a problem body
   * ({@code application/problem+json}) that says the limit. Only this advice throws the exception
   * handled here.
   */
  @ExceptionHandler(PostedBody.TooLargeException.class)
  public ResponseEntity<ProblemDetail> tooLarge(PostedBody.TooLargeException ex) {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONTENT_TOO_LARGE, ex.getMessage());
    return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).contentType(MediaType.APPLICATION_PROBLEM_JSON)
        .body(problem);
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
