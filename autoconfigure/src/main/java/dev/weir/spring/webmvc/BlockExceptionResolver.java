package dev.weir.spring.webmvc;

import dev.weir.BlockException;
import dev.weir.spring.web.RateLimitHeaders;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.Ordered;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
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
  private final boolean rateLimitHeaders;

  /**
   * Creates the resolver.
   *
   * @param responses makes the answers
   * @param converters the message converters for bodies other than {@link ProblemDetail}; asked
   *     on first use
   */
  public BlockExceptionResolver(BlockResponseFactory responses, Supplier<List<HttpMessageConverter<?>>> converters) {
    this(responses, converters, true);
  }

  /**
   * Creates the resolver.
   *
   * @param responses makes the answers
   * @param converters the message converters for bodies other than {@link ProblemDetail}; asked
   *     on first use
   * @param rateLimitHeaders whether a 429 answer to a flow or param-flow refusal gets the
   *     {@code RateLimit-Policy} and {@code RateLimit} headers ({@link RateLimitHeaders}) where the
   *     factory set none
   */
  public BlockExceptionResolver(BlockResponseFactory responses, Supplier<List<HttpMessageConverter<?>>> converters,
      boolean rateLimitHeaders) {
    this.responses = responses;
    this.converters = converters;
    this.rateLimitHeaders = rateLimitHeaders;
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
      BlockAnswers.write(responses.create(block, request), response, converters, rateLimitHeaders ? block : null);
    } catch (IOException e) {
      logger.warn("Could not write the answer to " + block.getMessage(), e);
    }
    return new ModelAndView();
  }

  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE;
  }
}
