package dev.weir.spring.webmvc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.AuthorityException;
import dev.weir.DegradeException;
import dev.weir.FlowException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;
import tools.jackson.databind.json.JsonMapper;

/** The default answer: status, Retry-After rounding, and the JSON written without a library. */
class ProblemDetailBlockResponseFactoryTests {

  private final ProblemDetailBlockResponseFactory factory = new ProblemDetailBlockResponseFactory();

  @ParameterizedTest(name = "{0} ns -> {1} s")
  @CsvSource({"0, 1", "1, 1", "999999999, 1", "1000000000, 1", "1000000001, 2", "59200000000, 60",
      "3600000000000, 3600"})
  void retryAfterIsWholeSecondsRoundedUpAtLeastOne(long nanos, long seconds) {
    FlowException block = new FlowException("r", null, nanos);
    assertThat(ProblemDetailBlockResponseFactory.retryAfterSeconds(block)).isEqualTo(seconds);
    ResponseEntity<ProblemDetail> response = factory.create(block, new MockHttpServletRequest("GET", "/r"));
    assertThat(response.getHeaders().getFirst("Retry-After")).isEqualTo(Long.toString(seconds));
  }

  @Test
  void statusPerKind() {
    assertThat(ProblemDetailBlockResponseFactory.statusOf(new FlowException("r", null, 0)))
        .isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
    assertThat(ProblemDetailBlockResponseFactory.statusOf(new DegradeException("r", null, 0)))
        .isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
    assertThat(ProblemDetailBlockResponseFactory.statusOf(new AuthorityException("r", null, 0)))
        .isEqualTo(HttpStatus.FORBIDDEN);
  }

  @Test
  @SuppressWarnings("unchecked")
  void problemJsonIsValidJsonWithEscapedTextAndFlattenedProperties() {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, "a \"quoted\"\n\\ \u0001 text");
    problem.setProperty("resource", "r\"1");
    problem.setProperty("nested", Map.of("list", List.of(1, 2.5, true)));
    problem.setProperty("nothing", null);
    Map<String, Object> json = JsonMapper.builder().build().readValue(ProblemJson.write(problem), Map.class);
    assertThat(json).containsEntry("type", "about:blank").containsEntry("status", 429)
        .containsEntry("title", "Too Many Requests").containsEntry("detail", "a \"quoted\"\n\\ \u0001 text")
        .containsEntry("resource", "r\"1").containsEntry("nested", Map.of("list", List.of(1, 2.5, true)))
        .containsEntry("nothing", null);
  }
}
