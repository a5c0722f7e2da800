package dev.weir.spring.docs.examples.grpc;

import dev.weir.spring.grpc.WeirClientInterceptor;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;

/** The gRPC page's client example: a plain grpc-java channel with Weir's interceptor. */
final class GrpcChannels {

  private GrpcChannels() {
  }

  static ManagedChannel payments(WeirClientInterceptor weirClientInterceptor) {
    // tag::channel[]
    ManagedChannel channel = Grpc.newChannelBuilder("payments:9090", InsecureChannelCredentials.create())
        .intercept(weirClientInterceptor)
        .build();
    // end::channel[]
    return channel;
  }
}
