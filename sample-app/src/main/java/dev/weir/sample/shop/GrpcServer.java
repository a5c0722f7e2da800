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

  private final int port;
  private final CatalogGrpcService catalog;
  private final WeirServerInterceptor weir;
  /** The server of the current start; a grpc-java server cannot start again once shut down. */
  private volatile Server server;
  private volatile boolean running;

  GrpcServer(@Value("${shop.grpc.port:9090}") int port, CatalogGrpcService catalog, WeirServerInterceptor weir) {
    this.port = port;
    this.catalog = catalog;
    this.weir = weir;
    this.server = newServer();
  }

  private Server newServer() {
    // tag::server[]
    return Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())
        .addService(ServerInterceptors.intercept(catalog, weir))
        .build();
    // end::server[]
  }

  /**
   * Starts the server; after a {@link #stop()} (a context that is stopped and started again, as
   * Spring's test context cache does with contexts it pauses) a new one on the same port.
   */
  @Override
  public void start() {
    if (server.isShutdown()) {
      server = newServer();
    }
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("the gRPC server could not start", e);
    }
    running = true;
  }

  @Override
  public void stop() {
    Server server = this.server;
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
