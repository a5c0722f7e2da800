package dev.weir.spring.webmvc;

import dev.weir.BlockException;
import dev.weir.spring.web.BlockProblems;
import dev.weir.spring.web.RateLimitHeaders;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;

/**
 * Writes an answer made by a {@link BlockResponseFactory} to a servlet response: a
 * {@link ProblemDetail} body as {@code application/problem+json} by Weir itself, any other body
 * through the application's message converters. The one home of this for the exception resolver
 * and the route filter.
 */
final class BlockAnswers {

  private static final Log logger = LogFactory.getLog(BlockAnswers.class);

  private BlockAnswers() {
  }

  /**
   * Writes {@code entity}. When {@code rateLimitsOf} is given and the answer is a 429, its
   * {@code RateLimit} headers are those of that refusal (replacing any a route set before).
   */
  @SuppressWarnings("unchecked")
  static void write(ResponseEntity<?> entity, HttpServletResponse servletResponse,
      Supplier<List<HttpMessageConverter<?>>> converters, @Nullable BlockException rateLimitsOf) throws IOException {
    ServletServerHttpResponse response = new ServletServerHttpResponse(servletResponse);
    response.setStatusCode(entity.getStatusCode());
    response.getHeaders().putAll(entity.getHeaders());
    if (rateLimitsOf != null && entity.getStatusCode().value() == HttpStatus.TOO_MANY_REQUESTS.value()
        && !entity.getHeaders().containsHeader(RateLimitHeaders.STATE)) {
      RateLimitHeaders.write(rateLimitsOf, servletResponse::setHeader);
    }
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
}
