package dev.weir.spring.client;

import static dev.weir.spring.test.Refusals.assertRefusedBy;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.annotation.RateLimited;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.spring.test.LocalHttp;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The integrations resolve each resource once into the engine's handle ({@code dev.weir.Resource}):
 * an annotated method and a {@code Mono} method on their first call, an inbound route and an
 * outgoing route on their first request. Rules replaced after that, through
 * {@code weir.rules().replace}, apply to the next call of each, and so does {@link Weir#reset()},
 * which keeps the rules: the handles follow the engine, over real HTTP in and out.
 */
@Timeout(120)
class HandlesFollowRulesTests {

  static final List<String> RESOURCES = List.of("handles.method", "handles.mono", "handles.route", "handles.client");

  PartnerServer partner;
  ConfigurableApplicationContext context;

  @BeforeEach
  void start() throws Exception {
    partner = PartnerServer.start();
    context = new SpringApplicationBuilder(HandlesApp.class).properties("server.port=0",
        "spring.reactor.netty.shutdown-quiet-period=0s",
        "weir.web.routes[0].resource=handles.route", "weir.web.routes[0].path=/api/**",
        "weir.client.routes[0].resource=handles.client", "weir.client.routes[0].url=" + partner.url("/partner/**"))
        .run();
  }

  @AfterEach
  void stop() {
    if (context != null) {
      context.close();
    }
    partner.close();
  }

  @Test
  void rulesReplacedAfterTheFirstCallsApplyToTheNextOnesAndResetKeepsThem() throws Exception {
    Weir weir = context.getBean(Weir.class);
    everyCallAdmitted("before any rule");

    for (String resource : RESOURCES) {
      weir.rules().replace(resource, RuleSet.of(FlowRule.qps(resource, 0)));
    }
    everyCallRefused("with a limit of 0 set after the first calls");

    weir.reset();
    everyCallRefused("after Weir.reset(), which keeps the rules");

    for (String resource : RESOURCES) {
      weir.rules().replace(resource, RuleSet.empty());
    }
    everyCallAdmitted("with the rules removed");
    for (String resource : RESOURCES) {
      assertThat(weir.statistics(resource).activeCalls()).as("calls in flight of %s", resource).isZero();
    }
  }

  private void everyCallAdmitted(String when) throws Exception {
    Work work = context.getBean(Work.class);
    assertThat(work.method()).as("the annotated method, %s", when).isEqualTo("method");
    assertThat(work.mono().block(Duration.ofSeconds(10))).as("the Mono method, %s", when).isEqualTo("mono");
    assertThat(LocalHttp.get(port(), "/api/ping").statusCode()).as("the route, %s", when).isEqualTo(200);
    assertThat(Client.REST_CLIENT.get(context, partner.url(""), "/partner/x")).as("the client route, %s", when)
        .isEqualTo("ok");
  }

  private void everyCallRefused(String when) throws Exception {
    Work work = context.getBean(Work.class);
    assertThat(assertRefusedBy(RuleKind.FLOW, work::method).resource()).as(when).isEqualTo("handles.method");
    assertThat(assertRefusedBy(RuleKind.FLOW, () -> work.mono().block(Duration.ofSeconds(10))).resource()).as(when)
        .isEqualTo("handles.mono");
    assertRefusedBy(RuleKind.FLOW, LocalHttp.get(port(), "/api/ping"));
    assertThat(assertRefusedBy(RuleKind.FLOW, () -> Client.REST_CLIENT.get(context, partner.url(""), "/partner/x"))
        .resource()).as(when).isEqualTo("handles.client");
  }

  private int port() {
    return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
  }

  /** An application with an annotated bean, an endpoint behind a route, and a client route to the partner. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Ping.class)
  static class HandlesApp {
    @Bean
    Work work() {
      return new Work();
    }
  }

  @RestController
  static class Ping {
    @GetMapping("/api/ping")
    String ping() {
      return "pong";
    }
  }

  /** Guarded methods. */
  static class Work {
    @RateLimited("handles.method")
    public String method() {
      return "method";
    }

    @RateLimited("handles.mono")
    public Mono<String> mono() {
      return Mono.just("mono");
    }
  }
}
