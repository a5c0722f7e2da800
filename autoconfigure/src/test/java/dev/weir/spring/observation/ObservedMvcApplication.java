package dev.weir.spring.observation;

import dev.weir.annotation.RateLimited;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.List;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;

/**
 * A Spring MVC application whose observations go through a test registry that records them and a
 * real tracer: OpenTelemetry's SDK through Micrometer's bridge, every span sampled and kept in
 * memory. Refusals happen in a route ({@code /api/**}), an {@code @RateLimited} method
 * ({@code /orders}) and an outgoing call ({@code /checkout}); {@code /open/**} is a route that admits.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(ObservedMvcApplication.Endpoints.class)
class ObservedMvcApplication {

  @Bean
  RecordedObservations recordedObservations() {
    return new RecordedObservations();
  }

  @Bean
  InMemorySpanExporter spans() {
    return InMemorySpanExporter.create();
  }

  @Bean(destroyMethod = "close")
  SdkTracerProvider tracerProvider(InMemorySpanExporter spans) {
    return SdkTracerProvider.builder().setSampler(Sampler.alwaysOn())
        .addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
  }

  @Bean
  TestObservationRegistry observationRegistry(RecordedObservations recorded, SdkTracerProvider tracerProvider) {
    TestObservationRegistry registry = recorded.registry();
    OtelCurrentTraceContext current = new OtelCurrentTraceContext();
    OtelTracer tracer = new OtelTracer(tracerProvider.get("weir-test"), current, event -> {
    }, new OtelBaggageManager(current, List.of(), List.of()));
    registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(tracer));
    return registry;
  }

  @Bean
  Orders orders() {
    return new Orders();
  }

  static class Orders {
    @RateLimited("orders")
    public String place() {
      return "placed";
    }
  }

  @RestController
  static class Endpoints {
    private final Orders orders;
    private final RestClient partner;

    Endpoints(Orders orders, RestClient.Builder clients) {
      this.orders = orders;
      this.partner = clients.baseUrl("http://partner.invalid").build();
    }

    @GetMapping("/api/limited")
    String limited() {
      return "never";
    }

    @GetMapping("/open/fine")
    String fine() {
      return "fine";
    }

    @GetMapping("/orders")
    String order() {
      return orders.place();
    }

    @GetMapping("/checkout")
    String checkout() {
      return partner.post().uri("/pay").retrieve().body(String.class);
    }
  }
}
