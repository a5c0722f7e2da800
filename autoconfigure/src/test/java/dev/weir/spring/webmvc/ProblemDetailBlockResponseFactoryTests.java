package dev.weir.spring.webmvc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.AuthorityException;
import dev.weir.DegradeException;
import dev.weir.FlowException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;

/** The default answer of Spring MVC: status and Retry-After rounding (the JSON: {@code BlockProblemsTests}). */
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
}
