package dev.weir.spring.grpc;

import io.grpc.BindableService;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A gRPC service written by hand (no generated code): the service {@code test.Echo} with a unary,
 * a server-streaming and a client-streaming method, strings as messages. What the unary method does
 * is said by its request: {@code ok} answers, {@code fail} ends with {@code INTERNAL}, {@code throw}
 * throws, {@code hang} answers only when {@link #release} is called (unless the call was cancelled).
 * It counts the calls its handlers started and the cancellations they saw.
 */
final class EchoService implements BindableService {

  static final String SERVICE = "test.Echo";

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

  static final MethodDescriptor<String, String> UNARY = method("Unary", MethodDescriptor.MethodType.UNARY);
  static final MethodDescriptor<String, String> STREAM = method("Stream", MethodDescriptor.MethodType.SERVER_STREAMING);
  static final MethodDescriptor<String, String> COLLECT = method("Collect", MethodDescriptor.MethodType.CLIENT_STREAMING);

  final AtomicInteger started = new AtomicInteger();
  /** The engine the request {@code inner} guards a nested call with, {@code echo.inner}; set by a test. */
  volatile dev.weir.@org.jspecify.annotations.Nullable Weir weir;
  final AtomicInteger cancelled = new AtomicInteger();
  final CountDownLatch hanging = new CountDownLatch(1);
  private final java.util.Queue<ServerCallStreamObserver<String>> hung = new java.util.concurrent.ConcurrentLinkedQueue<>();

  /** Answers the calls that hang, unless they were cancelled. */
  void release() {
    for (ServerCallStreamObserver<String> call; (call = hung.poll()) != null; ) {
      if (!call.isCancelled()) {
        call.onNext("released");
        call.onCompleted();
      }
    }
  }

  private static MethodDescriptor<String, String> method(String name, MethodDescriptor.MethodType type) {
    return MethodDescriptor.<String, String>newBuilder()
        .setType(type)
        .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
        .setRequestMarshaller(STRINGS)
        .setResponseMarshaller(STRINGS)
        .build();
  }

  @Override
  public ServerServiceDefinition bindService() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(UNARY, ServerCalls.asyncUnaryCall(this::unary))
        .addMethod(STREAM, ServerCalls.asyncServerStreamingCall(this::stream))
        .addMethod(COLLECT, ServerCalls.asyncClientStreamingCall(this::collect))
        .build();
  }

  /** Starts a server on a random port of the loopback interface with this service behind {@code interceptors}. */
  Server start(ServerInterceptor... interceptors) throws IOException {
    return Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
        .addService(ServerInterceptors.intercept(this, interceptors))
        .build()
        .start();
  }

  private void unary(String request, StreamObserver<String> response) {
    started.incrementAndGet();
    switch (request) {
      case "fail" -> response.onError(Status.INTERNAL.withDescription("broken").asRuntimeException());
      case "throw" -> throw new IllegalStateException("bug");
      case "inner" -> {
        try (dev.weir.Entry inner = weir.entry("echo.inner")) {
          response.onNext("inner ok");
          response.onCompleted();
        }
      }
      case "claim" -> { // the criticality claim the handler runs with
        response.onNext(String.valueOf(dev.weir.spring.web.CriticalityClaim.current()));
        response.onCompleted();
      }
      case "hang" -> {
        // answered by release(), never by blocking the call's thread (which would hold back its cancel)
        ServerCallStreamObserver<String> call = (ServerCallStreamObserver<String>) response;
        call.setOnCancelHandler(cancelled::incrementAndGet);
        hung.add(call);
        hanging.countDown();
      }
      default -> {
        response.onNext(request);
        response.onCompleted();
      }
    }
  }

  /** Sends "0", "1", ... every 20 ms until the client cancels (at most 1000). */
  private void stream(String request, StreamObserver<String> response) {
    started.incrementAndGet();
    ServerCallStreamObserver<String> call = (ServerCallStreamObserver<String>) response;
    call.setOnCancelHandler(cancelled::incrementAndGet);
    for (int i = 0; i < 1000 && !call.isCancelled(); i++) {
      response.onNext(Integer.toString(i));
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    if (!call.isCancelled()) {
      response.onCompleted();
    }
  }

  /** Collects the messages; answers them joined, or INVALID_ARGUMENT at a message "bad". */
  private StreamObserver<String> collect(StreamObserver<String> response) {
    started.incrementAndGet();
    ServerCallStreamObserver<String> call = (ServerCallStreamObserver<String>) response;
    call.setOnCancelHandler(cancelled::incrementAndGet);
    List<String> messages = new ArrayList<>();
    return new StreamObserver<>() {
      private boolean done;

      @Override
      public void onNext(String message) {
        if (done) {
          return;
        }
        if (message.equals("bad")) {
          done = true;
          response.onError(Status.INVALID_ARGUMENT.withDescription("bad message").asRuntimeException());
        } else {
          messages.add(message);
        }
      }

      @Override
      public void onError(Throwable failure) {
        done = true;
      }

      @Override
      public void onCompleted() {
        if (!done) {
          response.onNext(String.join(",", messages));
          response.onCompleted();
        }
      }
    };
  }
}
