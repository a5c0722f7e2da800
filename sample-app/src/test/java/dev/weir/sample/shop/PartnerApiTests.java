package dev.weir.sample.shop;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

/** The sample's /api/** route, limited per X-Api-Key, over real HTTP: the curl of docs/routes-and-keys.md. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
class PartnerApiTests {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  HttpResponse<String> get(String key) throws Exception {
    return CLIENT.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/api/status"))
        .header("X-Api-Key", key).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void eachApiKeyGetsFiveAMinute() throws Exception {
    for (int i = 1; i <= 5; i++) {
      HttpResponse<String> ok = get("sample-k1");
      assertThat(ok.statusCode()).isEqualTo(200);
      assertThat(ok.headers().firstValue("RateLimit-Policy")).hasValue("\"param-flow-0\";q=5;w=60");
      assertThat(ok.headers().firstValue("RateLimit")).get().asString().startsWith("\"param-flow-0\";r=" + (5 - i) + ";t=");
    }
    HttpResponse<String> refused = get("sample-k1");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("RateLimit")).get().asString().startsWith("\"param-flow-0\";r=0;t=");
    assertThat(refused.headers().firstValue("Retry-After")).isPresent();
    assertThat(get("sample-k2").statusCode()).as("another key, its own five").isEqualTo(200);
  }
}
