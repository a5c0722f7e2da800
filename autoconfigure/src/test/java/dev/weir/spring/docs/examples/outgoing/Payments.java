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
      long seconds = Math.max(1, refused.retryAfter().plusNanos(999_999_999).toSeconds()); // rounded up
      return "busy, retry in " + seconds + " s";
    }
  }
}
// end::payments[]
