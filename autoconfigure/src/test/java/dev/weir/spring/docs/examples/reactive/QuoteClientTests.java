package dev.weir.spring.docs.examples.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.test.ManualTicker;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The asynchronous page's {@link QuoteClient} against a real local server: an answer is cached, a
 * refusal is answered by the fallback without a request, and the entry is held until the answer
 * arrives (a concurrency limit of 1 refuses a second quote while the first is in flight).
 */
class QuoteClientTests {

  private HttpServer server;
  private final AtomicInteger requests = new AtomicInteger();

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/quotes/", exchange -> {
      requests.incrementAndGet();
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      byte[] body = "{\"symbol\":\"ACME\",\"priceCents\":6258}".getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().add("Content-Type", "application/json");
      exchange.sendResponseHeaders(200, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private ApplicationContextRunner runner(String... rules) {
    String url = "http://127.0.0.1:" + server.getAddress().getPort();
    return new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class))
        .withBean(ManualTicker.class, ManualTicker::new) // time stands still: the rules' second never ends
        .withBean(QuoteClient.class, () -> new QuoteClient(WebClient.builder(), url))
        .withPropertyValues(rules);
  }

  @Test
  void anAnswerIsCachedAndARefusalGetsTheCachedQuoteWithoutARequest() {
    runner("weir.flow[0].resource=quotes", "weir.flow[0].count=1").run(context -> {
      QuoteClient quotes = context.getBean(QuoteClient.class);
      assertThat(quotes.quote("ACME").block(Duration.ofSeconds(10))).isEqualTo(new QuoteClient.Quote("ACME", 6258));
      assertThat(quotes.quote("ACME").block(Duration.ofSeconds(10))).as("refused: the cache")
          .isEqualTo(new QuoteClient.Quote("ACME", 6258));
      assertThat(quotes.quote("INITECH").block(Duration.ofSeconds(10))).isEqualTo(QuoteClient.Quote.UNKNOWN);
      assertThat(requests).hasValue(1);
    });
  }

  @Test
  void theEntryIsHeldUntilTheAnswerArrives() {
    runner("weir.flow[0].resource=quotes", "weir.flow[0].grade=threads", "weir.flow[0].count=1").run(context -> {
      QuoteClient quotes = context.getBean(QuoteClient.class);
      var first = quotes.quote("ACME").toFuture();
      assertThat(quotes.quote("ACME").block(Duration.ofSeconds(10))).as("the first is in flight")
          .isEqualTo(QuoteClient.Quote.UNKNOWN);
      assertThat(first.get()).isEqualTo(new QuoteClient.Quote("ACME", 6258));
      assertThat(context.getBean(Weir.class).statistics("quotes").activeCalls()).isZero();
    });
  }
}
