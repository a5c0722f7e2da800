package dev.weir.spring.grpc;

import static dev.weir.spring.grpc.GrpcCalls.unary;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Criticality;
import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.WeirBuilderCustomizer;
import dev.weir.spring.autoconfigure.grpc.WeirGrpcAutoConfiguration;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code weir.grpc.criticality-metadata}: the criticality a server call claims in its metadata, as
 * the engine sees it (a slot) and as the service's handler runs with it, through a real channel to
 * a real server; a claim lowers, never raises, and a value that names no criticality is no claim.
 */
@Timeout(60)
class GrpcCriticalityTests {

  private static final String UNARY = "grpc:test.Echo/Unary";

  /** Records the criticality of the last call of each resource. */
  static final class LastCriticality extends ProcessorSlot {
    final Map<String, Criticality> last = new ConcurrentHashMap<>();

    @Override
    public int order() {
      return 0;
    }

    @Override
    public @Nullable BlockException entry(Invocation invocation) {
      last.put(invocation.resource(), invocation.criticality());
      return null;
    }
  }

  private final LastCriticality slot = new LastCriticality();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirGrpcAutoConfiguration.class))
      .withBean(WeirBuilderCustomizer.class, () -> builder -> builder.slot(slot));

  private void call(ApplicationContextRunner runner, String metadataValue, Criticality expected, String claimSeen) {
    runner.run(context -> {
      EchoService service = new EchoService();
      Server server = service.start(context.getBean(WeirServerInterceptor.class));
      ManagedChannel channel = GrpcCalls.channel(server);
      try {
        String claim = unary(metadataValue == null ? channel
            : GrpcCalls.withHeader(channel, "x-criticality", metadataValue), "claim");
        assertThat(slot.last.get(UNARY)).as("the call's criticality with %s", metadataValue).isEqualTo(expected);
        assertThat(claim).as("the claim the handler ran with").isEqualTo(claimSeen);
      } finally {
        GrpcCalls.shutdown(channel, server);
      }
    });
  }

  @Test
  void theMetadataLowersTheCallAndIsTheHandlersClaim() {
    ApplicationContextRunner configured = runner.withPropertyValues("weir.grpc.criticality-metadata=x-criticality");
    call(configured, "sheddable", Criticality.SHEDDABLE, "SHEDDABLE");
    call(configured, "SHEDDABLE_PLUS", Criticality.SHEDDABLE_PLUS, "SHEDDABLE_PLUS");
    call(configured, null, Criticality.CRITICAL, "null");
  }

  @Test
  void theMetadataNeverRaisesAndHostileValuesAreNoClaim() {
    ApplicationContextRunner configured = runner.withPropertyValues("weir.grpc.criticality-metadata=x-criticality");
    call(configured, "CRITICAL_PLUS", Criticality.CRITICAL, "CRITICAL_PLUS");
    call(configured, "", Criticality.CRITICAL, "null");
    call(configured, "nonsense", Criticality.CRITICAL, "null");
    call(configured, "SHEDDABLE".repeat(100), Criticality.CRITICAL, "null");
  }

  @Test
  void withoutTheSettingTheMetadataIsNotRead() {
    call(runner, "SHEDDABLE", Criticality.CRITICAL, "null");
  }

  @Test
  void anInvalidMetadataKeyStopsTheStartNamingTheProperty() {
    runner.withPropertyValues("weir.grpc.criticality-metadata=bad key").run(context ->
        assertThat(context).getFailure().rootCause().hasMessageContaining("weir.grpc.criticality-metadata"));
  }
}
