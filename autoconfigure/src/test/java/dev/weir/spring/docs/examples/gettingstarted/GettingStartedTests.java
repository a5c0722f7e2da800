package dev.weir.spring.docs.examples.gettingstarted;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spring.test.LocalHttp;
import dev.weir.spring.test.ManualTicker;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;

/**
 * The getting-started page's application, with the page's {@code application.yml}
 * ({@code docs-getting-started.yml}), over real HTTP: what the page says {@code curl} sees. Time is
 * a manual ticker, so that the three requests fall in one second whatever the machine's load.
 */
@SpringBootTest(classes = {DemoApplication.class, GettingStartedTests.Clock.class},
    webEnvironment = WebEnvironment.RANDOM_PORT, properties = "spring.config.name=docs-getting-started")
@DirtiesContext
class GettingStartedTests {

  @TestConfiguration(proxyBeanMethods = false)
  static class Clock {
    @Bean
    ManualTicker ticker() {
      return new ManualTicker();
    }
  }

  @LocalServerPort
  int port;

  @Autowired
  ManualTicker ticker;

  @Test
  void theThirdGreetingInASecondIsA429WithRetryAfterAndAProblemBody() throws Exception {
    assertThat(LocalHttp.get(port, "/hello").body()).isEqualTo("Hello, world!");
    assertThat(LocalHttp.get(port, "/hello?name=Weir").body()).isEqualTo("Hello, Weir!");
    HttpResponse<String> refused = LocalHttp.get(port, "/hello");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Retry-After")).hasValue("1");
    assertThat(refused.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"flow\";q=2;w=1");
    assertThat(refused.headers().firstValue("RateLimit")).hasValue("\"flow\";r=0;t=1");
    assertThat(refused.body()).isEqualTo("{\"type\":\"urn:weir:block:flow\",\"title\":\"Too Many Requests\","
        + "\"status\":429,\"detail\":\"Too many calls of 'greeting'. Retry after 1 second.\",\"instance\":\"/hello\","
        + "\"resource\":\"greeting\"}");
    ticker.advance(Duration.ofSeconds(1));
    assertThat(LocalHttp.get(port, "/hello").statusCode()).isEqualTo(200);
  }
}
