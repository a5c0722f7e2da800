package dev.weir.spring.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.weir.BlockException;
import dev.weir.rule.RuleKind;
import java.net.http.HttpResponse;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/**
 * Assertions that a call was refused by a rule of a given kind, not merely refused: in Java, a
 * {@link BlockException} whose {@link BlockException#ruleKind()} is that kind; over HTTP, the status
 * of that kind (429, 503 or 403) with an {@code application/problem+json} body whose {@code type}
 * is {@code urn:weir:block:<kind>}.
 */
public final class Refusals {

  private Refusals() {
  }

  /** Asserts that {@code call} throws a {@link BlockException} of a rule of {@code kind}, and returns it. */
  public static BlockException assertRefusedBy(RuleKind kind, ThrowingCallable call) {
    Throwable thrown = catchThrowable(call);
    assertThat(thrown).as("a refusal by a %s rule", kind.tag()).isInstanceOf(BlockException.class);
    BlockException refusal = (BlockException) thrown;
    assertThat(refusal.ruleKind()).as("the kind of the rule that refused: %s", refusal.getMessage()).isEqualTo(kind);
    return refusal;
  }

  /**
   * Asserts that {@code response} is Weir's answer to a refusal by a rule of {@code kind}: status
   * 429 (flow, param-flow, system), 503 (degrade) or 403 (authority), and a problem of type
   * {@code urn:weir:block:<kind>}.
   */
  public static void assertRefusedBy(RuleKind kind, HttpResponse<String> response) {
    assertThat(response.statusCode()).as("status of a refusal by a %s rule: %s", kind.tag(), response.body())
        .isEqualTo(status(kind));
    assertThat(response.headers().firstValue("Content-Type")).as("content type")
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    assertThat(response.body()).as("problem type").contains("\"type\":\"urn:weir:block:" + kind.tag() + "\"");
  }

  private static int status(RuleKind kind) {
    return switch (kind) {
      case FLOW, PARAM_FLOW, SYSTEM -> 429;
      case DEGRADE -> 503;
      case AUTHORITY -> 403;
    };
  }
}
