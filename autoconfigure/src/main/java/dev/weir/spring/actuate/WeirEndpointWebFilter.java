package dev.weir.spring.actuate;

import dev.weir.spring.properties.InputLimits;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.json.JsonMapper;

/**
 * Lets {@code POST /actuator/weir/{resource}} take the contract's body, {@code {"flow": [...]}}, on
 * Spring WebFlux, as {@link WeirEndpointRequestBodyAdvice} does on Spring MVC, and answers a body
 * over 1 MiB with {@code 413}.
 *
 * <p>Spring Boot's WebFlux handler of every actuator write operation reads the body as a map of
 * strings, with the application's codecs: a list in it fails to decode (a bare 400 without a
 * reason), and any body over the codecs' in-memory limit (256 KiB by default) fails too. Then it
 * takes the operation's arguments from the path's variables, the body and the query parameters
 * ({@code ReactiveWebOperationAdapter#getArguments}). So, for the one write operation of this
 * endpoint and only while it is open, this filter reads the body itself: at most 1 MiB and one byte
 * ({@link PostedBody}; a {@code Content-Length} over the limit is answered 413 without reading the
 * body), and hands the actuator a request with no body and one query parameter, {@code rules},
 * holding {@link PostedBody#rulesArgument} (the object posted with the original query parameters
 * added as keys, or the page's form, or the text of a body that is not an object). The operation
 * then gets the same argument as on Spring MVC, and refuses or applies it with the same answers.
 * Every other request is passed on untouched.
 */
public final class WeirEndpointWebFilter implements WebFilter, Ordered {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private final Supplier<String> endpointPath;
  private final BooleanSupplier writesOpen;

  /**
   * Creates the filter.
   *
   * @param endpointPath supplies the path of the {@code weir} endpoint within the application,
   *     {@code /actuator/weir} unless the base path or the endpoint's path is mapped elsewhere
   * @param writesOpen whether the write operation is open ({@code management.endpoint.weir.access=unrestricted});
   *     while it is not, the filter does nothing (the operation is not mapped)
   */
  public WeirEndpointWebFilter(Supplier<String> endpointPath, BooleanSupplier writesOpen) {
    this.endpointPath = endpointPath;
    this.writesOpen = writesOpen;
  }

  /** After security filters (Spring Security's run at -100), so that a refused request is not read. */
  @Override
  public int getOrder() {
    return 0;
  }

  @Override
  public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
    ServerHttpRequest request = exchange.getRequest();
    if (!HttpMethod.POST.equals(request.getMethod())
        || !isResourcePath(request.getPath().pathWithinApplication().value()) || !writesOpen.getAsBoolean()) {
      return chain.filter(exchange);
    }
    if (PostedBody.announcesTooMuch(request.getHeaders().getContentLength())) {
      return tooLarge(exchange.getResponse());
    }
    // join refuses, and releases what it holds, as soon as more than the limit has arrived.
    return DataBufferUtils.join(request.getBody(), InputLimits.MAX_BYTES)
        .map(WeirEndpointWebFilter::bytes)
        .defaultIfEmpty(new byte[0])
        .map(body -> new Body(body, false))
        .onErrorResume(DataBufferLimitException.class, over -> Mono.just(new Body(new byte[0], true)))
        .flatMap(body -> body.tooLarge() ? tooLarge(exchange.getResponse())
            : chain.filter(exchange.mutate().request(new OneArgument(request,
                PostedBody.rulesArgument(body.bytes(), request.getQueryParams()))).build()));
  }

  private boolean isResourcePath(String path) {
    String prefix = endpointPath.get() + "/";
    return path.startsWith(prefix) && path.length() > prefix.length() && path.indexOf('/', prefix.length()) < 0;
  }

  private static byte[] bytes(DataBuffer buffer) {
    try {
      byte[] bytes = new byte[buffer.readableByteCount()];
      buffer.read(bytes);
      return bytes;
    } finally {
      DataBufferUtils.release(buffer);
    }
  }

  private static Mono<Void> tooLarge(ServerHttpResponse response) {
    response.setStatusCode(HttpStatus.CONTENT_TOO_LARGE);
    response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
    byte[] problem = JSON.writeValueAsBytes(Map.of("title", "Content Too Large", "status", 413,
        "detail", PostedBody.TOO_LARGE));
    return response.writeWith(Mono.just(response.bufferFactory().wrap(problem)));
  }

  private record Body(byte[] bytes, boolean tooLarge) {
  }

  /** The request as the actuator is handed it: no body, and the one query parameter {@code rules}. */
  private static final class OneArgument extends ServerHttpRequestDecorator {

    private final MultiValueMap<String, String> query = new LinkedMultiValueMap<>();
    private final HttpHeaders headers;

    OneArgument(ServerHttpRequest request, String rules) {
      super(request);
      query.put("rules", List.of(rules));
      String ifMatch = request.getHeaders().getFirst(HttpHeaders.IF_MATCH);
      if (ifMatch != null) {
        query.put("ifMatch", List.of(ifMatch)); // the version a write to the rules store is based on
      }
      HttpHeaders copy = new HttpHeaders();
      copy.putAll(request.getHeaders());
      copy.remove(HttpHeaders.CONTENT_LENGTH);
      this.headers = HttpHeaders.readOnlyHttpHeaders(copy);
    }

    @Override
    public MultiValueMap<String, String> getQueryParams() {
      return query;
    }

    @Override
    public HttpHeaders getHeaders() {
      return headers;
    }

    @Override
    public Flux<DataBuffer> getBody() {
      return Flux.empty();
    }
  }
}
