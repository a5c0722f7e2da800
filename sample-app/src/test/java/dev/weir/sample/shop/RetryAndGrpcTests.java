package dev.weir.sample.shop;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The shop's retry budget and gRPC service, as docs/retry-budgets.md and docs/grpc.md show them: stock checks against a
 * warehouse that is down, over real HTTP, and the catalog over gRPC on its own port.
 */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
    "shop.warehouse.failure-rate=1.0", "shop.warehouse.retry-delay=0ms"})
class RetryAndGrpcTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @Autowired
  Warehouse warehouse;

  @Autowired
  GrpcServer grpc;

  @Test
  void aWarehouseThatIsDownSeesLittleMoreThanTheShopsTraffic() throws Exception {
    int before = warehouse.calls();
    for (int i = 0; i < 20; i++) {
      HttpResponse<String> down = CLIENT.send(HttpRequest.newBuilder(
          URI.create("http://localhost:" + port + "/products/p-1/stock")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(down.statusCode()).isEqualTo(503);
    }
    int attempts = warehouse.calls() - before;
    // 20 first attempts; the budget of 10 s allows 0.1 x 20 + 1/s x 10 s = 12 retries, where
    // @Retryable(maxRetries = 3) alone would make 60
    assertThat(attempts).isBetween(20, 32);
  }

  @Test
  void theCatalogOverGrpcIsLimitedToFiveCallsASecond() throws Exception {
    ManagedChannel channel = Grpc.newChannelBuilder("localhost:" + grpc.port(), InsecureChannelCredentials.create()).build();
    try {
      int answered = 0;
      StatusRuntimeException refused = null;
      for (int i = 0; i < 50 && refused == null; i++) {
        try {
          String product = ClientCalls.blockingUnaryCall(channel, CatalogGrpcService.GET_PRODUCT,
              CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "p-1");
          assertThat(product).startsWith("p-1|");
          answered++;
        } catch (StatusRuntimeException e) {
          refused = e;
        }
      }
      assertThat(answered).as("answered before the first refusal").isPositive();
      assertThat(refused).isNotNull();
      assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(refused.getTrailers().get(Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER)))
          .isNotNull();
    } finally {
      channel.shutdownNow();
      channel.awaitTermination(10, TimeUnit.SECONDS);
    }
  }
}
