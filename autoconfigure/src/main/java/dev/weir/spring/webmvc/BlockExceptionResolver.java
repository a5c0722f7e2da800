package dev.weir.spring.webmvc;

import dev.weir.BlockException;
import dev.weir.spring.web.BlockProblems;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.web.servlet.HandlerExceptionResolver;
import org.springframework.web.servlet.ModelAndView;

/**
 * Answers a {@link BlockException} that escaped a Spring MVC handler with what the
 * {@link BlockResponseFactory} makes of it. It runs at {@link Ordered#LOWEST_PRECEDENCE}, after
 * Spring MVC's own resolvers: a controller's or {@code @ControllerAdvice}'s
 * {@code @ExceptionHandler} for the exception (or a supertype of it) wins.
 */
public final class BlockExceptionResolver implements HandlerExceptionResolver, Ordered {

  private static final Log logger = LogFactory.getLog(BlockExceptionResolver.class);

  private final BlockResponseFactory responses;
  private final Supplier<List<HttpMessageConverter<?>>> converters;

  /**
   * Creates the resolver.
   *
   * @param responses makes the answers
   * @param converters the message converters for bodies other than {@link ProblemDetail}; asked
   *     on first use
   */
  public BlockExceptionResolver(BlockResponseFactory responses, Supplier<List<HttpMessageConverter<?>>> converters) {
    this.responses = responses;
    this.converters = converters;
  }

  @Override
  public @Nullable ModelAndView resolveException(HttpServletRequest request, HttpServletResponse response,
      @Nullable Object handler, Exception exception) {
    if (!(exception instanceof BlockException block)) {
      return null;
    }
    if (response.isCommitted()) {
      logger.debug("Response already committed; cannot answer " + block.getMessage());
      return null;
    }
    try {
      write(responses.create(block, request), response);
    } catch (IOException e) {
      logger.warn("Could not write the answer to " + block.getMessage(), e);
    }
    return new ModelAndView();
  }

  @SuppressWarnings("unchecked")
  private void write(ResponseEntity<?> entity, HttpServletResponse servletResponse) throws IOException {
    ServletServerHttpResponse response = new ServletServerHttpResponse(servletResponse);
    response.setStatusCode(entity.getStatusCode());
    response.getHeaders().putAll(entity.getHeaders());
    Object body = entity.getBody();
    MediaType type = entity.getHeaders().getContentType();
    if (body instanceof ProblemDetail problem) {
      if (type == null) {
        response.getHeaders().setContentType(MediaType.APPLICATION_PROBLEM_JSON);
      }
      response.getBody().write(BlockProblems.json(problem).getBytes(StandardCharsets.UTF_8));
    } else if (body != null) {
      MediaType target = type != null ? type : MediaType.APPLICATION_JSON;
      for (HttpMessageConverter<?> converter : converters.get()) {
        if (converter.canWrite(body.getClass(), target)) {
          ((HttpMessageConverter<Object>) converter).write(body, target, response);
          return;
        }
      }
      logger.warn("No message converter writes " + body.getClass().getName() + " as " + target
          + "; answering without a body");
    }
    response.flush();
  }

  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}
