package dev.weir.spring.client;

import static dev.weir.spring.test.Refusals.assertRefusedBy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.weir.BlockException;
import dev.weir.Weir;
import dev.weir.rule.RuleKind;
import dev.weir.spring.test.ManualTicker;
import java.io.IOException;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * {@code weir.client.honour-upstream} with each client against a real local server: an answer that
 * asks for a pause refuses the route's resource locally, on the engine's (driven) ticker, for exactly
 * that long, and nothing reaches the server meanwhile; headers that are not valid ask for nothing.
 */
@Timeout(60)
class HonourUpstreamTests {

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

  @ParameterizedTest
  @EnumSource(Client.class)
  void aTooManyRequestsWithRetryAfterPausesTheResourceForThatLong(Client client) {
    server.answer("/partner/busy", 429, "slow down", "Retry-After", "2");
    runner().run(context -> {
      assertThat(catchThrowable(() -> client.get(context, base(), "/partner/busy")))
          .isInstanceOfAny(HttpClientErrorException.TooManyRequests.class,
              WebClientResponseException.TooManyRequests.class);
      BlockException paused = assertRefusedBy(RuleKind.FLOW, () -> client.get(context, base(), "/partner/orders"));
      assertThat(paused.retryAfter()).isEqualTo(Duration.ofSeconds(2));
      assertThat(paused.rule()).isInstanceOfSatisfying(dev.weir.rule.FlowRule.class,
          rule -> assertThat(rule.name()).isEqualTo(UpstreamPauses.UPSTREAM_RULE_NAME));
      assertThat(server.hits("/partner/orders")).as("nothing was sent while paused").isZero();
      assertThat(context.getBean(Weir.class).statistics("partner").totalBlocked(RuleKind.FLOW))
          .as("the engine counts the pause's refusals").isEqualTo(1);

      ticker(context).advance(Duration.ofMillis(1999));
      assertThat(assertRefusedBy(RuleKind.FLOW, () -> client.get(context, base(), "/partner/orders")).retryAfter())
          .isEqualTo(Duration.ofMillis(1));
      ticker(context).advance(Duration.ofMillis(1));
      assertThat(client.get(context, base(), "/partner/orders")).isEqualTo("ok");
      assertThat(server.hits("/partner/orders")).isEqualTo(1);
      assertThat(client.get(context, base(), "/elsewhere")).as("another resource is not paused").isEqualTo("ok");
    });
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void aRateLimitHeaderWithNothingLeftPausesForItsResetEvenOnASuccess(Client client) {
    server.answer("/partner/last", 200, "the last one", "RateLimit", "\"x\";r=0;t=3");
    runner().run(context -> {
      assertThat(client.get(context, base(), "/partner/last")).isEqualTo("the last one");
      BlockException paused = assertRefusedBy(RuleKind.FLOW, () -> client.get(context, base(), "/partner/orders"));
      assertThat(paused.retryAfter()).isEqualTo(Duration.ofSeconds(3));
      ticker(context).advance(Duration.ofSeconds(3));
      assertThat(client.get(context, base(), "/partner/orders")).isEqualTo("ok");
      assertThat(server.hits("/partner/orders")).isEqualTo(1);
    });
  }

  @Test
  void theSmallestResetOfTheExhaustedPoliciesIsHonoured() {
    server.answer("/partner/a", 200, "a", "RateLimit", "\"hour\";r=0;t=3600, \"minute\";r=0;t=40",
        "RateLimit", "\"second\";r=4;t=1");
    runner().run(context -> {
      Client.REST_CLIENT.get(context, base(), "/partner/a");
      assertThat(assertRefusedBy(RuleKind.FLOW, () -> Client.REST_CLIENT.get(context, base(), "/partner/a"))
          .retryAfter()).isEqualTo(Duration.ofSeconds(40));
    });
  }

  @Test
  void aServiceUnavailableWithAnHttpDateIsHonoured() {
    // the JDK's server sets Date itself, in whole seconds, when it answers: the pause is the 5 s asked
    // for less the whole seconds that began between formatting the Retry-After and the answer (4 s,
    // or less on a stalled machine); UpstreamHeadersTests checks the arithmetic against a given Date
    DateTimeFormatter http = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US);
    runner().run(context -> {
      server.answer("/partner/down", 503, "maintenance", "Retry-After",
          http.format(ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(5)));
      assertThat(catchThrowable(() -> Client.REST_CLIENT.get(context, base(), "/partner/down")))
          .isInstanceOf(HttpServerErrorException.ServiceUnavailable.class);
      assertThat(assertRefusedBy(RuleKind.FLOW, () -> Client.REST_CLIENT.get(context, base(), "/partner/orders"))
          .retryAfter()).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(5));
    });
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void aSpentTokenBudgetOfAModelProviderPausesUntilItsReset(Client client) {
    server.answer("/partner/chat", 200, "the answer", "x-ratelimit-remaining-tokens", "0",
        "x-ratelimit-reset-tokens", "1m2.5s", "x-ratelimit-remaining-requests", "99",
        "x-ratelimit-reset-requests", "20ms");
    runner().run(context -> {
      assertThat(client.get(context, base(), "/partner/chat")).isEqualTo("the answer");
      BlockException paused = assertRefusedBy(RuleKind.FLOW, () -> client.get(context, base(), "/partner/chat"));
      assertThat(paused.retryAfter()).isEqualTo(Duration.ofMillis(62_500));
      assertThat(server.hits("/partner/chat")).as("nothing was sent while paused").isEqualTo(1);
      ticker(context).advance(Duration.ofMillis(62_499));
      assertRefusedBy(RuleKind.FLOW, () -> client.get(context, base(), "/partner/orders"));
      ticker(context).advance(Duration.ofMillis(1));
      assertThat(client.get(context, base(), "/partner/orders")).isEqualTo("ok");
    });
  }

  @Test
  void aSpentRequestBudgetPausesAndTheLaterResetOfTwoSpentBudgetsWins() {
    server.answer("/partner/both", 200, "b", "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "20ms",
        "x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "6m0s");
    runner().run(context -> {
      Client.REST_CLIENT.get(context, base(), "/partner/both");
      assertThat(assertRefusedBy(RuleKind.FLOW, () -> Client.REST_CLIENT.get(context, base(), "/partner/a"))
          .retryAfter()).isEqualTo(Duration.ofMinutes(6));
    });
  }

  @Test
  void aSpentAnthropicBudgetPausesUntilItsResetTime() {
    // the JDK's server sets Date itself, in whole seconds: the reset counts from it (see the HTTP-date test)
    runner().run(context -> {
      server.answer("/partner/msg", 200, "m", "anthropic-ratelimit-output-tokens-remaining", "0",
          "anthropic-ratelimit-output-tokens-reset",
          java.time.OffsetDateTime.now(ZoneOffset.UTC).plusSeconds(5).toString());
      Client.WEB_CLIENT.get(context, base(), "/partner/msg");
      assertThat(assertRefusedBy(RuleKind.FLOW, () -> Client.WEB_CLIENT.get(context, base(), "/partner/msg"))
          .retryAfter()).isBetween(Duration.ofSeconds(2), Duration.ofSeconds(6));
      assertThat(server.hits("/partner/msg")).isEqualTo(1);
    });
  }

  @Test
  void providerBudgetHeadersThatAreNotValidAskForNothing() {
    String[][] garbage = {
        {"x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "-1s"},
        {"x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "1d"},
        {"x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "1" + "0".repeat(100) + "s"},
        {"x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "1h" + "1s".repeat(40)},
        {"x-ratelimit-remaining-tokens", "-0", "x-ratelimit-reset-tokens", "5s"},
        {"x-ratelimit-remaining-tokens", "1", "x-ratelimit-reset-tokens", "5s"},
        {"x-ratelimit-remaining-requests", "0", "x-ratelimit-reset-requests", "5 s"},
        {"anthropic-ratelimit-tokens-remaining", "0", "anthropic-ratelimit-tokens-reset", "2099-13-45T99:00:00Z"},
    };
    runner().run(context -> {
      for (int i = 0; i < garbage.length; i++) {
        String path = "/partner/garbage-" + i;
        server.answer(path, 200, "g", garbage[i]);
        Client.REST_CLIENT.get(context, base(), path);
        assertThat(Client.REST_CLIENT.get(context, base(), "/partner/next-" + i))
            .as("no pause after %s", String.join(" ", garbage[i])).isEqualTo("ok");
      }
    });
  }

  @Test
  void aDelayOverAnHourIsHonouredForAnHour() {
    server.answer("/partner/busy", 429, "", "Retry-After", "99999999999999999999999999");
    runner().run(context -> {
      catchThrowable(() -> Client.REST_CLIENT.get(context, base(), "/partner/busy"));
      assertThat(assertRefusedBy(RuleKind.FLOW, () -> Client.REST_CLIENT.get(context, base(), "/partner/a"))
          .retryAfter()).isEqualTo(Duration.ofHours(1));
      ticker(context).advance(Duration.ofHours(1));
      assertThat(Client.REST_CLIENT.get(context, base(), "/partner/a")).isEqualTo("ok");
    });
  }

  @Test
  void headersThatAreNotValidAskForNothing() {
    String[][] garbage = {
        {"429", "Retry-After", "-1"}, {"429", "Retry-After", "2.5"}, {"429", "Retry-After", "1e3"},
        {"429", "Retry-After", "Tue, 32 Foo 2099 99:00:00 GMT"}, {"429", "Retry-After", "2".repeat(100)},
        {"429", "Retry-After", "\u00a0\u00a02"}, {"200", "Retry-After", "5"}, {"404", "Retry-After", "5"},
        {"200", "RateLimit", "\"x\";r=0;t=-5"}, {"200", "RateLimit", "\"x\";r=0;t=3.5"},
        {"200", "RateLimit", "\"x\";r=0;t=9999999999999999"}, {"200", "RateLimit", "\"x\";r=0;t=3,"},
        {"200", "RateLimit", "\"x\";r=0;t=3 trailing"}, {"200", "RateLimit", "\"unterminated;r=0;t=3"},
        {"200", "RateLimit", "\"x\";R=0;T=3"}, {"200", "RateLimit", "\"x\";r=1;t=3"}, {"200", "RateLimit", "\"x\";r=0"},
        {"200", "RateLimit", "\"x\";r=\"0\";t=3"}, {"200", "RateLimit", "(\"x\";r=0;t=3"},
        {"200", "RateLimit", "\"x\";r=0;t=3, " + "\"y\";r=5;t=1, ".repeat(400) + "\"z\";r=0;t=3"},
        {"200", "RateLimit", "\"x\";r=0;t=3;" + "p;".repeat(3000)}, {"200", "RateLimit", "\"x\";r=0;;t=3"},
    };
    runner().run(context -> {
      for (int i = 0; i < garbage.length; i++) {
        String path = "/partner/garbage-" + i;
        server.answer(path, Integer.parseInt(garbage[i][0]), "g", garbage[i][1], garbage[i][2]);
        catchThrowable(() -> Client.REST_CLIENT.get(context, base(), path));
        assertThat(Client.REST_CLIENT.get(context, base(), "/partner/next-" + i))
            .as("no pause after %s: %s on a %s", garbage[i][1], garbage[i][2], garbage[i][0]).isEqualTo("ok");
      }
    });
  }

  @Test
  void withoutHonourUpstreamAnAnswerPausesNothing() {
    server.answer("/partner/busy", 429, "slow down", "Retry-After", "2", "RateLimit", "\"x\";r=0;t=3",
        "x-ratelimit-remaining-tokens", "0", "x-ratelimit-reset-tokens", "5s");
    runner("weir.client.honour-upstream=false").run(context -> {
      assertThat(context).doesNotHaveBean(UpstreamPauses.class);
      catchThrowable(() -> Client.REST_CLIENT.get(context, base(), "/partner/busy"));
      assertThat(Client.REST_CLIENT.get(context, base(), "/partner/orders")).isEqualTo("ok");
    });
  }

  @Test
  void anEngineOfTheApplicationsOwnIsPausedByTheGuard() {
    server.answer("/partner/busy", 429, "slow down", "Retry-After", "2");
    runner().withBean("ownWeir", Weir.class, () -> Weir.builder().build()).run(context -> {
      catchThrowable(() -> Client.REST_CLIENT.get(context, base(), "/partner/busy"));
      BlockException paused =
          assertRefusedBy(RuleKind.FLOW, () -> Client.REST_CLIENT.get(context, base(), "/partner/a"));
      assertThat(paused.retryAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2));
      assertThat(server.hits("/partner/a")).isZero();
    });
  }

  private static ManualTicker ticker(ApplicationContext context) {
    return context.getBean(ManualTicker.class);
  }
}
