package dev.weir.spring.client;

import static dev.weir.spring.test.Refusals.assertRefusedBy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.weir.BlockException;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.rule.RuleKind;
import dev.weir.spring.test.ManualTicker;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.http.HttpMethod;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.reactive.function.client.WebClientRequestException;
import org.springframework.web.reactive.function.client.WebClientResponseException;
import reactor.core.publisher.Mono;

/**
 * Outgoing calls of {@code RestClient}, {@code RestTemplate} and {@code WebClient}, each built from
 * Spring Boot's builder in a real application context, to a real local server that counts what
 * reaches it: a route's rules refuse before anything is sent, failures are failures, and the call's
 * permits come back on every path.
 */
@Timeout(60)
class OutgoingCallsTests {

  PartnerServer server;

  @BeforeEach
  void startServer() throws IOException {
    server = PartnerServer.start();
  }

  @AfterEach
  void stopServer() {
    server.close();
  }

  ApplicationContextRunner runner(String... properties) {
    return new ApplicationContextRunner().withUserConfiguration(ClientApp.class)
        .withPropertyValues("weir.client.routes[0].resource=partner",
            "weir.client.routes[0].url=" + server.url("/partner/**"), "spring.reactor.netty.shutdown-quiet-period=0s")
        .withPropertyValues(properties);
  }

  String base() {
    return server.url("");
  }

  static ResourceStatistics partner(ApplicationContext context) {
    ResourceStatistics statistics = context.getBean(Weir.class).statistics("partner");
    assertThat(statistics).as("the partner resource").isNotNull();
    return statistics;
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void aRouteLimitsItsRequestsAndARefusedOneNeverReachesTheServer(Client client) {
    runner("weir.flow[0].resource=partner", "weir.flow[0].count=2").run(context -> {
      assertThat(client.get(context, base(), "/partner/orders")).isEqualTo("ok");
      assertThat(client.get(context, base(), "/partner/stock")).isEqualTo("ok");
      BlockException refused = assertRefusedBy(RuleKind.FLOW, () -> client.get(context, base(), "/partner/orders"));
      assertThat(refused.resource()).isEqualTo("partner");
      assertThat(server.hits("/partner/orders")).as("requests that reached the server").isEqualTo(1);
      assertThat(partner(context).totalPassed()).isEqualTo(2);
      assertThat(partner(context).totalBlocked(RuleKind.FLOW)).isEqualTo(1);
      assertThat(partner(context).activeCalls()).isZero();

      assertThat(client.get(context, base(), "/elsewhere")).as("a path no route matches").isEqualTo("ok");
      assertThat(server.hits("/elsewhere")).isEqualTo(1);
      assertThat(partner(context).totalPassed() + partner(context).totalBlocked()).isEqualTo(3);

      context.getBean(ManualTicker.class).advance(Duration.ofSeconds(1));
      assertThat(client.get(context, base(), "/partner/orders")).as("the next second").isEqualTo("ok");
      assertThat(server.hits("/partner/orders")).isEqualTo(2);
    });
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void aRouteToAServiceNameWithAnUnderscoreGuardsItsRequests(Client client) {
    // java.net.URI has no host for rates_partner (a registry-based authority); the clients send to
    // it all the same. A limit of 0 refuses before any connection, so no name needs to resolve:
    // unguarded, the request would fail to connect instead.
    new ApplicationContextRunner().withUserConfiguration(ClientApp.class)
        .withPropertyValues("weir.client.routes[0].resource=rates", "weir.client.routes[0].url=http://rates_partner:8080/**",
            "weir.client.routes[1].resource=fq", "weir.client.routes[1].url=http://fq.weir.invalid/**",
            "weir.flow[0].resource=rates", "weir.flow[0].count=0", "weir.flow[1].resource=fq", "weir.flow[1].count=0",
            "spring.reactor.netty.shutdown-quiet-period=0s")
        .run(context -> {
          assertThat(assertRefusedBy(RuleKind.FLOW, () -> client.get(context, "http://rates_partner:8080", "/rates"))
              .resource()).isEqualTo("rates");
          assertThat(assertRefusedBy(RuleKind.FLOW,
              () -> client.get(context, "http://user@Rates_Partner:8080", "/rates")).resource()).isEqualTo("rates");
          assertThat(assertRefusedBy(RuleKind.FLOW, () -> client.get(context, "http://fq.weir.invalid.", "/x"))
              .resource()).as("the fully qualified form of the route's host").isEqualTo("fq");
        });
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void aRouteAppliesToItsMethodsOnly(Client client) {
    runner("weir.client.routes[0].methods=POST", "weir.flow[0].resource=partner", "weir.flow[0].count=0")
        .run(context -> {
          assertThat(client.get(context, base(), "/partner/orders")).isEqualTo("ok");
          assertRefusedBy(RuleKind.FLOW, () -> client.call(context, base(), HttpMethod.POST, "/partner/orders"));
          assertThat(server.hits("/partner/orders")).isEqualTo(1);
        });
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void aServerErrorIsAFailedCallAndOpensABreakerWhileA4xxDoesNot(Client client) {
    server.answer("/partner/missing", 404, "no such thing");
    server.answer("/partner/broken", 500, "down");
    runner("weir.degrade[0].resource=partner", "weir.degrade[0].strategy=error-count",
        "weir.degrade[0].threshold=1", "weir.degrade[0].min-request-amount=2", "weir.degrade[0].stat-interval=10s",
        "weir.degrade[0].open-duration=10s").run(context -> {
          for (int i = 0; i < 4; i++) {
            assertThat(catchThrowable(() -> client.get(context, base(), "/partner/missing")))
                .isInstanceOfAny(HttpClientErrorException.NotFound.class, WebClientResponseException.NotFound.class);
          }
          assertThat(partner(context).totalFailed()).as("404s are not failures").isZero();
          for (int i = 0; i < 2; i++) {
            assertThat(catchThrowable(() -> client.get(context, base(), "/partner/broken")))
                .isInstanceOfAny(HttpServerErrorException.InternalServerError.class,
                    WebClientResponseException.InternalServerError.class);
          }
          assertThat(partner(context).totalFailed()).isEqualTo(2);
          assertRefusedBy(RuleKind.DEGRADE, () -> client.get(context, base(), "/partner/missing"));
          assertThat(server.hits("/partner/broken")).isEqualTo(2);
          assertThat(server.hits("/partner/missing")).as("the open breaker sent nothing").isEqualTo(4);
          assertThat(partner(context).activeCalls()).isZero();
        });
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void aConnectionFailureIsAFailedCallThatGivesItsPermitBack(Client client) throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    String nowhere = "http://127.0.0.1:" + closed;
    runner("weir.client.routes[0].url=" + nowhere + "/**", "weir.flow[0].resource=partner", "weir.flow[0].grade=threads",
        "weir.flow[0].count=1").run(context -> {
          for (int i = 0; i < 3; i++) { // one permit: each failure must have given it back
            assertThat(catchThrowable(() -> client.get(context, nowhere, "/partner/orders")))
                .isInstanceOfAny(ResourceAccessException.class, WebClientRequestException.class);
          }
          assertThat(partner(context).totalFailed()).isEqualTo(3);
          assertThat(partner(context).activeCalls()).isZero();
        });
  }

  @ParameterizedTest
  @EnumSource(value = Client.class, names = {"REST_CLIENT", "REST_TEMPLATE"})
  void aReadTimeoutIsAFailedCallThatGivesItsPermitBack(Client client) {
    CountDownLatch release = new CountDownLatch(1);
    server.hold("/partner/slow", release);
    runner("weir.flow[0].resource=partner", "weir.flow[0].grade=threads", "weir.flow[0].count=1").run(context -> {
      try {
        assertThat(catchThrowable(() -> client.get(context, base(), "/partner/slow")))
            .isInstanceOf(ResourceAccessException.class);
        assertThat(partner(context).totalFailed()).isEqualTo(1);
        assertThat(partner(context).activeCalls()).isZero();
        assertThat(client.get(context, base(), "/partner/orders")).as("the permit is back").isEqualTo("ok");
      } finally {
        release.countDown();
      }
    });
  }

  @Test
  void aRestClientCallLastsUntilItsResponseIsClosed() {
    runner("weir.flow[0].resource=partner", "weir.flow[0].grade=threads", "weir.flow[0].count=1").run(context -> {
      var client = context.getBean(org.springframework.web.client.RestClient.Builder.class).baseUrl(base()).build();
      String inner = client.get().uri("/partner/outer").exchange((request, response) -> {
        assertThat(partner(context).activeCalls()).as("while the response is open").isEqualTo(1);
        assertRefusedBy(RuleKind.FLOW, () -> client.get().uri("/partner/inner").retrieve().body(String.class));
        return new String(response.getBody().readAllBytes());
      }, true);
      assertThat(inner).isEqualTo("ok");
      assertThat(partner(context).activeCalls()).as("once it is closed").isZero();
      assertThat(server.hits("/partner/inner")).isZero();
      assertThat(client.get().uri("/partner/inner").retrieve().body(String.class)).isEqualTo("ok");
    });
  }

  @Test
  void aWebClientCallLastsUntilItsBodyIsConsumed() {
    runner("weir.flow[0].resource=partner", "weir.flow[0].grade=threads", "weir.flow[0].count=1").run(context -> {
      var client = context.getBean(org.springframework.web.reactive.function.client.WebClient.Builder.class)
          .baseUrl(base()).build();
      long[] activeBeforeTheBody = {-1};
      Throwable[] inner = {null};
      String answer = client.get().uri("/partner/outer").exchangeToMono(response -> {
        activeBeforeTheBody[0] = partner(context).activeCalls();
        // another call while this body is unread: refused (no blocking on the connector's thread)
        return client.get().uri("/partner/inner").retrieve().bodyToMono(String.class)
            .doOnError(failure -> inner[0] = failure).onErrorResume(failure -> Mono.empty())
            .then(response.bodyToMono(String.class));
      }).block(Duration.ofSeconds(10));
      assertThat(activeBeforeTheBody[0]).as("before the body is read").isEqualTo(1);
      assertThat(inner[0]).isInstanceOf(dev.weir.FlowException.class);
      assertThat(answer).isEqualTo("ok");
      assertThat(partner(context).activeCalls()).as("once the body is consumed").isZero();
      assertThat(server.hits("/partner/inner")).isZero();
    });
  }

  @Test
  void aCancelledWebClientCallIsCancelledAndGivesItsPermitBack() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    server.hold("/partner/slow", release);
    runner("weir.flow[0].resource=partner", "weir.flow[0].grade=threads", "weir.flow[0].count=1").run(context -> {
      try {
        var client = context.getBean(org.springframework.web.reactive.function.client.WebClient.Builder.class)
            .baseUrl(base()).build();
        // a caller's timeout cancels the exchange before the answer
        assertThat(catchThrowable(() -> client.get().uri("/partner/slow").retrieve().bodyToMono(String.class)
            .timeout(Duration.ofMillis(300)).block(Duration.ofSeconds(10))))
            .hasCauseInstanceOf(java.util.concurrent.TimeoutException.class);
        awaitNoActiveCall(context);
        assertThat(partner(context).totalFailed()).as("a cancel is no failure").isZero();

        // a subscription disposed of while waiting
        var pending = client.get().uri("/partner/slow").retrieve().bodyToMono(String.class).subscribe();
        awaitHits("/partner/slow", 2);
        assertThat(partner(context).activeCalls()).isEqualTo(1);
        pending.dispose();
        awaitNoActiveCall(context);
        assertThat(Client.WEB_CLIENT.get(context, base(), "/partner/orders")).as("the permit is back")
            .isEqualTo("ok");
        assertThat(partner(context).totalFailed()).isZero();
      } finally {
        release.countDown();
      }
    });
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void aKeyExpressionSeesTheOutgoingRequest(Client client) {
    runner("weir.param-flow[0].resource=partner", "weir.param-flow[0].key=#request.getHeader('X-Tenant')",
        "weir.param-flow[0].count=1", "weir.param-flow[0].duration=1m", "weir.param-flow[1].resource=partner",
        "weir.param-flow[1].key=#request.getParameter('region') ?: #request.getMethod() + #request.getRequestURI()",
        "weir.param-flow[1].count=2", "weir.param-flow[1].duration=1m").run(context -> {
          assertThat(client.get(context, base(), "/partner/a?region=eu", "X-Tenant", "t-1")).isEqualTo("ok");
          assertRefusedBy(RuleKind.PARAM_FLOW, () -> client.get(context, base(), "/partner/a", "X-Tenant", "t-1"));
          assertThat(client.get(context, base(), "/partner/a?region=eu", "X-Tenant", "t-2")).isEqualTo("ok");
          assertRefusedBy(RuleKind.PARAM_FLOW,
              () -> client.get(context, base(), "/partner/a?region=eu", "X-Tenant", "t-3"));
          assertThat(client.get(context, base(), "/partner/b", "X-Tenant", "t-3")).as("key GET/partner/b")
              .isEqualTo("ok");
          assertThat(server.hits("/partner/a")).isEqualTo(2);
          assertThat(server.lastHeader("/partner/a", "X-Tenant")).isEqualTo("t-2");
        });
  }

  @Test
  void routesAreCheckedAtStartNamingTheirPaths() {
    new ApplicationContextRunner().withUserConfiguration(ClientApp.class)
        .withPropertyValues("weir.client.routes[0].url=ftp://files.example.com/**",
            "weir.client.routes[1].resource=b", "weir.client.routes[1].url=https://api.example.com:99999/**",
            "weir.client.routes[2].resource=c", "weir.client.routes[2].url=https://api.example.com/{x",
            "weir.client.routes[2].methods=FETCH")
        .run(context -> {
          assertThat(context).hasFailed();
          assertThat(context.getStartupFailure()).rootCause().message()
              .contains("weir.client.routes[0].resource").contains("weir.client.routes[0].url")
              .contains("weir.client.routes[1].url").contains("port from 1 to 65535")
              .contains("weir.client.routes[2].url").contains("weir.client.routes[2].methods[0]");
        });
  }

  private void awaitHits(String path, int hits) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (server.hits(path) < hits && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(server.hits(path)).isEqualTo(hits);
  }

  private static void awaitNoActiveCall(ApplicationContext context) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (partner(context).activeCalls() != 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(partner(context).activeCalls()).as("calls in flight").isZero();
  }
}
