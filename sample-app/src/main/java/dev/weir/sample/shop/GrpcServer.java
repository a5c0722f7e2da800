package dev.weir.sample.shop;

import dev.weir.spring.grpc.WeirServerInterceptor;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * The shop's gRPC server, on its own port ({@code shop.grpc.port}, 9090 by default; 0 picks a free
 * one), serving {@link CatalogGrpcService} behind Weir's {@link WeirServerInterceptor} bean. This is
 * how a plain grpc-java server takes Weir; with Spring gRPC (spring-grpc-core and a Spring Boot gRPC
 * server) the interceptor is applied to every service without this class.
 */
@Component
class GrpcServer implements SmartLifecycle {

  private final Server server;
  private volatile boolean running;

  GrpcServer(@Value("${shop.grpc.port:9090}") int port, Catalog catalog, WeirServerInterceptor weir) {
    // tag::server[]
    this.server = Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())
        .addService(ServerInterceptors.intercept(new CatalogGrpcService(catalog), weir))
        .build();
    // end::server[]
  }

  @Override
  public void start() {
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("the gRPC server could not start", e);
    }
    running = true;
  }

  @Override
  public void stop() {
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    running = false;
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  /** The port the server listens on. */
  int port() {
    return server.getPort();
  }
}
