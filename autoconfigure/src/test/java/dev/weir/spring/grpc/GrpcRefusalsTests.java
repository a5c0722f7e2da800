package dev.weir.spring.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.ParamFlowException;
import dev.weir.rule.NullKey;
import dev.weir.rule.ParamFlowRule;
import io.grpc.Status;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How a hot-parameter refusal ends a gRPC call: a call without a key ({@code null-key: deny}) is
 * the caller's error, {@code INVALID_ARGUMENT} with a pushback of -1 (do not retry); a call over
 * its key's limit is {@code RESOURCE_EXHAUSTED} with the time to wait.
 */
class GrpcRefusalsTests {

  private static final ParamFlowRule RULE = ParamFlowRule.builder("grpc:shop.Catalog/GetProduct")
      .key("#metadata['x-tenant']").nullKey(NullKey.DENY).count(1).build();

  @Test
  void aMissingKeyIsInvalidArgumentAndNotRetried() {
    ParamFlowException refusal = new ParamFlowException(RULE.resource(), RULE, 0, true);
    Status status = GrpcRefusals.status(refusal);
    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(status.getDescription())
        .isEqualTo("The call of grpc:shop.Catalog/GetProduct has no key: #metadata['x-tenant'] is missing.");
    assertThat(GrpcRefusals.pushbackMillis(refusal)).isEqualTo(-1);
    assertThat(GrpcRefusals.trailers(refusal).get(GrpcRefusals.PUSHBACK_KEY)).isEqualTo("-1");
  }

  @Test
  void aKeyOverItsLimitIsResourceExhaustedWithItsWait() {
    ParamFlowException refusal = new ParamFlowException(RULE.resource(), RULE, TimeUnit.MILLISECONDS.toNanos(1500));
    assertThat(GrpcRefusals.status(refusal).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(GrpcRefusals.pushbackMillis(refusal)).isEqualTo(1500);
  }
}
