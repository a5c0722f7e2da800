package dev.weir.spring.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.assertj.core.api.Assertions;

/** Client side helpers of the gRPC tests: channels to a test server, calls, and waiting for a condition. */
final class GrpcCalls {

  static final Metadata.Key<String> PUSHBACK = Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

  private GrpcCalls() {
  }

  /** A plaintext channel to {@code server}, through {@code interceptors}. */
  static ManagedChannel channel(Server server) {
    return Grpc.newChannelBuilder("localhost:" + server.getPort(), InsecureChannelCredentials.create()).build();
  }

  /** {@code channel} with {@code interceptors} in front of it. */
  static Channel through(Channel channel, ClientInterceptor... interceptors) {
    return ClientInterceptors.intercept(channel, interceptors);
  }

  /** {@code channel} sending the metadata {@code key: value} with every call. */
  static Channel withHeader(Channel channel, String key, String value) {
    Metadata headers = new Metadata();
    headers.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER), value);
    return ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  static String unary(Channel channel, String request) {
    return ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), request);
  }

  /** The failure of a unary call that must fail. */
  static StatusRuntimeException failure(Channel channel, String request) {
    try {
      String answer = unary(channel, request);
      throw new AssertionError("expected the call to fail, it answered " + answer);
    } catch (StatusRuntimeException failed) {
      return failed;
    }
  }

  /** Waits up to 10 s for {@code condition}. */
  static void eventually(String what, BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        Assertions.fail("not within 10 s: " + what);
      }
      Thread.sleep(10);
    }
  }

  static void shutdown(ManagedChannel channel, Server server) throws InterruptedException {
    channel.shutdownNow();
    server.shutdownNow();
    assertThat(channel.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    assertThat(server.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }
}
