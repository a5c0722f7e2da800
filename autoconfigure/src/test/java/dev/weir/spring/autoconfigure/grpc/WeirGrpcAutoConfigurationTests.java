package dev.weir.spring.autoconfigure.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.grpc.WeirClientInterceptor;
import dev.weir.spring.grpc.WeirServerInterceptor;
import io.grpc.BindableService;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.grpc.client.ChannelBuilderOptions;
import org.springframework.grpc.client.ClientInterceptorsConfigurer;
import org.springframework.grpc.client.DefaultGrpcChannelFactory;
import org.springframework.grpc.server.service.DefaultGrpcServiceConfigurer;
import org.springframework.grpc.server.service.GrpcServiceSpec;

/**
 * {@link WeirGrpcAutoConfiguration}: when it applies, and that Spring gRPC's own configurers (the
 * ones its Spring Boot auto-configuration uses for every service and channel) pick Weir's
 * interceptors up as global interceptors: a real server and a real channel made through them.
 */
@Timeout(60)
class WeirGrpcAutoConfigurationTests {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirGrpcAutoConfiguration.class));

  @Test
  void springGrpcAppliesBothInterceptorsGlobally() {
    runner.withUserConfiguration(SpringGrpcConfigurers.class)
        .withPropertyValues("weir.flow[0].resource=grpc:test.Ping/Ping", "weir.flow[0].count=1",
            "weir.flow[1].resource=grpc-client:test.Ping/Ping", "weir.flow[1].count=2")
        .run(context -> {
          Ping ping = new Ping();
          ServerServiceDefinition service = context.getBean(DefaultGrpcServiceConfigurer.class)
              .configure(new GrpcServiceSpec(ping, null), null);
          Server server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create()).addService(service).build().start();
          DefaultGrpcChannelFactory<?> channels = context.getBean(DefaultGrpcChannelFactory.class);
          ManagedChannel channel = channels.createChannel("localhost:" + server.getPort(), ChannelBuilderOptions.defaults());
          try {
            assertThat(ping(channel)).isEqualTo("pong");
            StatusRuntimeException server2nd = call(channel);
            assertThat(server2nd.getStatus().getCode()).as("the server's rule, 1 per second").isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
            assertThat(server2nd.getCause()).as("refused by the server, not by the channel").isNull();
            StatusRuntimeException client3rd = call(channel);
            assertThat(client3rd.getCause()).as("refused by the channel's rule, 2 per second").isInstanceOf(FlowException.class);
            assertThat(ping.calls.get()).isEqualTo(1);
            Weir weir = context.getBean(Weir.class);
            assertThat(weir.statistics("grpc:test.Ping/Ping").totalBlocked()).isEqualTo(1);
            assertThat(weir.statistics("grpc-client:test.Ping/Ping").totalBlocked()).isEqualTo(1);
          } finally {
            channel.shutdownNow();
            server.shutdownNow();
            server.awaitTermination(10, TimeUnit.SECONDS);
          }
        });
  }

  @Test
  void withoutSpringGrpcTheInterceptorsAreBeansToAdd() {
    runner.withClassLoader(new FilteredClassLoader("org.springframework.grpc"))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(WeirServerInterceptor.class)
            .hasSingleBean(WeirClientInterceptor.class));
  }

  @Test
  void offWithoutGrpcJava() {
    runner.withClassLoader(new FilteredClassLoader("io.grpc", "org.springframework.grpc"))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Weir.class)
            .doesNotHaveBean(WeirServerInterceptor.class).doesNotHaveBean(WeirClientInterceptor.class));
  }

  @Test
  void offWhenDisabled() {
    runner.withPropertyValues("weir.grpc.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WeirServerInterceptor.class)
            .doesNotHaveBean(WeirClientInterceptor.class));
  }

  @Test
  void offWithoutWeir() {
    runner.withPropertyValues("weir.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(WeirServerInterceptor.class));
  }

  @Test
  void anApplicationsOwnInterceptorReplacesWeirs() {
    runner.withBean("custom", WeirServerInterceptor.class, () -> new WeirServerInterceptor(Weir.builder().build(), null))
        .run(context -> assertThat(context).hasSingleBean(WeirServerInterceptor.class).hasBean("custom"));
  }

  @Test
  void anInvalidOriginMetadataKeyStopsTheStartNamingTheProperty() {
    runner.withPropertyValues("weir.grpc.origin-metadata=caller-bin").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidWeirConfigurationException.class)
          .hasMessageContaining("weir.grpc.origin-metadata");
    });
    runner.withPropertyValues("weir.grpc.origin-metadata=bad key").run(context -> assertThat(context).hasFailed());
  }

  private static String ping(ManagedChannel channel) {
    return ClientCalls.blockingUnaryCall(channel, Ping.METHOD, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "ping");
  }

  private static StatusRuntimeException call(ManagedChannel channel) {
    try {
      throw new AssertionError("expected a refusal, got " + ping(channel));
    } catch (StatusRuntimeException refused) {
      return refused;
    }
  }

  /** Spring gRPC's configurers, as its Spring Boot auto-configuration declares them. */
  @Configuration(proxyBeanMethods = false)
  static class SpringGrpcConfigurers {

    @Bean
    DefaultGrpcServiceConfigurer grpcServiceConfigurer(ApplicationContext context) {
      return new DefaultGrpcServiceConfigurer(context);
    }

    @Bean
    ClientInterceptorsConfigurer clientInterceptorsConfigurer(ApplicationContext context) {
      return new ClientInterceptorsConfigurer(context);
    }

    @Bean
    DefaultGrpcChannelFactory<?> grpcChannelFactory(ClientInterceptorsConfigurer interceptors) {
      return new DefaultGrpcChannelFactory<>(List.of(), interceptors);
    }
  }

  /** test.Ping/Ping, answering "pong". */
  static final class Ping implements BindableService {

    static final MethodDescriptor.Marshaller<String> STRINGS = new MethodDescriptor.Marshaller<>() {
      @Override
      public InputStream stream(String value) {
        return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
      }

      @Override
      public String parse(InputStream stream) {
        try {
          return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    };

    static final MethodDescriptor<String, String> METHOD = MethodDescriptor.<String, String>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY).setFullMethodName("test.Ping/Ping")
        .setRequestMarshaller(STRINGS).setResponseMarshaller(STRINGS).build();

    final AtomicInteger calls = new AtomicInteger();

    @Override
    public ServerServiceDefinition bindService() {
      return ServerServiceDefinition.builder("test.Ping").addMethod(METHOD, ServerCalls.asyncUnaryCall((request, response) -> {
        calls.incrementAndGet();
        response.onNext("pong");
        response.onCompleted();
      })).build();
    }
  }
}
