package dev.weir.spring.autoconfigure.grpc;

import dev.weir.Weir;
import dev.weir.rule.RuleViolation;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.autoconfigure.ResourcesInUse;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.grpc.WeirClientInterceptor;
import dev.weir.spring.grpc.WeirServerInterceptor;
import dev.weir.spring.properties.WeirProperties;
import io.grpc.BindableService;
import io.grpc.Metadata;
import io.grpc.ServerInterceptor;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.grpc.client.GlobalClientInterceptor;
import org.springframework.grpc.server.GlobalServerInterceptor;

/**
 * Auto-configuration of Weir for gRPC (grpc-java), on with {@code weir.grpc.enabled} (the default):
 * a {@link WeirServerInterceptor} bean (server methods as {@code IN} resources
 * {@code grpc:<service>/<method>}, origin from the metadata key {@code weir.grpc.origin-metadata},
 * claimed criticality from {@code weir.grpc.criticality-metadata})
 * and a {@link WeirClientInterceptor} bean ({@code OUT}, {@code grpc-client:<service>/<method>}).
 * With Spring gRPC ({@code spring-grpc-core}) present they are its global interceptors, applied to
 * every service and every channel it makes; without it, add them to servers and channels yourself.
 * A bean of either type of the application's replaces Weir's.
 */
@AutoConfiguration(after = WeirAutoConfiguration.class)
@ConditionalOnClass(ServerInterceptor.class)
@ConditionalOnBean(Weir.class)
@ConditionalOnBooleanProperty(name = "weir.grpc.enabled", matchIfMissing = true)
public final class WeirGrpcAutoConfiguration {

  static WeirServerInterceptor serverInterceptor(Weir weir, WeirProperties properties) {
    String originMetadata = properties.getGrpc().getOriginMetadata();
    String criticalityMetadata = properties.getGrpc().getCriticalityMetadata();
    checkKey("weir.grpc.origin-metadata", originMetadata);
    checkKey("weir.grpc.criticality-metadata", criticalityMetadata);
    return new WeirServerInterceptor(weir, originMetadata, criticalityMetadata);
  }

  private static void checkKey(String path, @Nullable String key) {
    if (key == null || key.isBlank()) {
      return;
    }
    try {
      Metadata.Key.of(key.strip(), Metadata.ASCII_STRING_MARSHALLER);
    } catch (IllegalArgumentException invalid) {
      throw new InvalidWeirConfigurationException(List.of(new RuleViolation(path,
          "must be an ASCII metadata key (lower-case letters, digits, '-', '_', '.', not ending in -bin), was '"
              + key + "'")));
    }
  }

  /**
   * The server methods of the application's services, the {@link BindableService} beans, as the
   * resources {@code grpc:<service>/<method>} their calls will be: declared before any call, so that
   * a rule for one is not reported as a rule nothing uses.
   */
  @Bean
  ResourcesInUse.DeclaredResources weirGrpcServerMethods(ObjectProvider<BindableService> services) {
    return () -> {
      Set<String> names = new TreeSet<>();
      services.orderedStream().forEach(service -> service.bindService().getServiceDescriptor().getMethods()
          .forEach(method -> names.add(WeirServerInterceptor.RESOURCE_PREFIX + method.getFullMethodName())));
      return names;
    };
  }

  /** With Spring gRPC: the interceptors are its global ones. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "org.springframework.grpc.server.GlobalServerInterceptor")
  static final class SpringGrpcInterceptors {

    @Bean
    @GlobalServerInterceptor
    @ConditionalOnMissingBean
    WeirServerInterceptor weirGrpcServerInterceptor(Weir weir, WeirProperties properties) {
      return serverInterceptor(weir, properties);
    }

    @Bean
    @GlobalClientInterceptor
    @ConditionalOnMissingBean
    WeirClientInterceptor weirGrpcClientInterceptor(Weir weir) {
      return new WeirClientInterceptor(weir);
    }
  }

  /** Without Spring gRPC: beans to add to servers and channels. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingClass("org.springframework.grpc.server.GlobalServerInterceptor")
  static final class PlainInterceptors {

    @Bean
    @ConditionalOnMissingBean
    WeirServerInterceptor weirGrpcServerInterceptor(Weir weir, WeirProperties properties) {
      return serverInterceptor(weir, properties);
    }

    @Bean
    @ConditionalOnMissingBean
    WeirClientInterceptor weirGrpcClientInterceptor(Weir weir) {
      return new WeirClientInterceptor(weir);
    }
  }
}
