package dev.weir.spring.docs.examples.outgoing;

import dev.weir.BlockException;
import java.util.Map;
import org.springframework.stereotype.Service;
import org.springframework.web.client.RestClient;

/** The outgoing-calls page's example: a partner called through Spring Boot's {@code RestClient.Builder}. */
// tag::payments[]
@Service
class Payments {

  private final RestClient client;

  Payments(RestClient.Builder builder) {           // Spring Boot's builder: guarded
    this.client = builder.baseUrl("https://payments.example.com").build();
  }

  String charge(String order) {
    try {
      return client.post().uri("/v1/charges").body(Map.of("order", order)).retrieve().body(String.class);
    } catch (BlockException refused) {            // nothing was sent
      return "busy, retry in " + refused.retryAfter().toSeconds() + " s";
    }
  }
}
// end::payments[]
