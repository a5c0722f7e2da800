package dev.weir.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.AuthorityException;
import dev.weir.BlockException;
import dev.weir.DegradeException;
import dev.weir.FlowException;
import dev.weir.ParamFlowException;
import dev.weir.SystemBlockException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import tools.jackson.databind.json.JsonMapper;

/** The answer both web stacks give: status per rule kind, Retry-After, the problem and its JSON. */
class BlockProblemsTests {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @Test
  void statusPerRuleKind() {
    assertThat(BlockProblems.statusOf(new FlowException("r", null, 0))).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
    assertThat(BlockProblems.statusOf(new ParamFlowException("r", null, 0))).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
    assertThat(BlockProblems.statusOf(new SystemBlockException("r", null, 0))).isEqualTo(HttpStatus.TOO_MANY_REQUESTS);
    assertThat(BlockProblems.statusOf(new DegradeException("r", null, 0))).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
    assertThat(BlockProblems.statusOf(new AuthorityException("r", null, 0))).isEqualTo(HttpStatus.FORBIDDEN);
  }

  @ParameterizedTest(name = "{0} ns -> {1} s")
  @CsvSource({"0, 1", "1, 1", "999999999, 1", "1000000000, 1", "1000000001, 2", "2500000000, 3",
      "3600000000000, 3600"})
  void retryAfterIsWholeSecondsRoundedUpAtLeastOne(long nanos, long seconds) {
    FlowException block = new FlowException("r", null, nanos);
    assertThat(BlockProblems.retryAfterSeconds(block)).isEqualTo(seconds);
    assertThat(BlockProblems.answer(block, "/r").getHeaders().getFirst("Retry-After")).isEqualTo(Long.toString(seconds));
  }

  @Test
  void degradeAnswerIsA503ProblemWithRetryAfter() {
    ResponseEntity<ProblemDetail> answer = BlockProblems.answer(new DegradeException("orders", null, 2_500_000_000L),
        "/orders/7");
    assertThat(answer.getStatusCode()).isEqualTo(HttpStatus.SERVICE_UNAVAILABLE);
    assertThat(answer.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
    assertThat(answer.getHeaders().getFirst("Retry-After")).isEqualTo("3");
    ProblemDetail problem = answer.getBody();
    assertThat(problem).isNotNull();
    assertThat(problem.getType()).isEqualTo(URI.create("urn:weir:block:degrade"));
    assertThat(problem.getTitle()).isEqualTo("Service Unavailable");
    assertThat(problem.getStatus()).isEqualTo(503);
    assertThat(problem.getInstance()).isEqualTo(URI.create("/orders/7"));
    assertThat(problem.getDetail())
        .isEqualTo("Calls of 'orders' are suspended while its circuit breaker is open. Retry after 3 seconds.");
    assertThat(problem.getProperties()).containsEntry("resource", "orders");
  }

  @Test
  void authorityAnswerIsA403WithoutRetryAfter() {
    ResponseEntity<ProblemDetail> answer = BlockProblems.answer(new AuthorityException("admin", null, 0), "/admin");
    assertThat(answer.getStatusCode()).isEqualTo(HttpStatus.FORBIDDEN);
    assertThat(answer.getHeaders().containsHeader("Retry-After")).isFalse();
    assertThat(answer.getBody().getDetail()).isEqualTo("This caller may not call 'admin'.");
  }

  @Test
  void aPathThatIsNoUriLeavesInstanceOut() {
    assertThat(BlockProblems.answer(new FlowException("r", null, 0), "/a b|c").getBody().getInstance()).isNull();
    assertThat(BlockProblems.answer(new FlowException("r", null, 0), null).getBody().getInstance()).isNull();
  }

  @Test
  @SuppressWarnings("unchecked")
  void theAnswersJsonHasEveryMember() {
    ProblemDetail problem = BlockProblems.answer(new ParamFlowException("product", null, 1), "/products/p-1").getBody();
    Map<String, Object> json = JSON.readValue(BlockProblems.json(problem), Map.class);
    assertThat(json).containsOnly(Map.entry("type", "urn:weir:block:param-flow"),
        Map.entry("title", "Too Many Requests"), Map.entry("status", 429),
        Map.entry("detail", "Too many calls of 'product' with this argument. Retry after 1 second."),
        Map.entry("instance", "/products/p-1"), Map.entry("resource", "product"));
  }

  @Test
  @SuppressWarnings("unchecked")
  void problemJsonIsValidJsonWithEscapedTextAndFlattenedProperties() {
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.TOO_MANY_REQUESTS, "a \"quoted\"\n\\ \u0001 text");
    problem.setProperty("resource", "r\"1");
    problem.setProperty("nested", Map.of("list", List.of(1, 2.5, true)));
    problem.setProperty("nothing", null);
    Map<String, Object> json = JSON.readValue(BlockProblems.json(problem), Map.class);
    assertThat(json).containsEntry("type", "about:blank").containsEntry("status", 429)
        .containsEntry("title", "Too Many Requests").containsEntry("detail", "a \"quoted\"\n\\ \u0001 text")
        .containsEntry("resource", "r\"1").containsEntry("nested", Map.of("list", List.of(1, 2.5, true)))
        .containsEntry("nothing", null);
  }

  @Test
  void everyBlockExceptionKindIsCovered() {
    // the five kinds of the sealed hierarchy, each with its own type URI
    List<BlockException> blocks = List.of(new FlowException("r", null, 0), new DegradeException("r", null, 0),
        new ParamFlowException("r", null, 0), new AuthorityException("r", null, 0), new SystemBlockException("r", null, 0));
    assertThat(blocks).extracting(block -> BlockProblems.answer(block, "/").getBody().getType().toString())
        .containsExactly("urn:weir:block:flow", "urn:weir:block:degrade", "urn:weir:block:param-flow",
            "urn:weir:block:authority", "urn:weir:block:system");
  }
}
