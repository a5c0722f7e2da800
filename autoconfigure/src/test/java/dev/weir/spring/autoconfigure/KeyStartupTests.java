package dev.weir.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.annotation.RateLimited;
import dev.weir.rule.RuleViolation;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.ConfigDataApplicationContextInitializer;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * A bad key expression stops the start, naming its property path and why, whatever the compiler
 * throws for it: keys that reached the servlet context, the application context or Netty through
 * the request, that ran a regular expression or built a huge string per call, that are too long or
 * too deep to read, and one that walks into an {@code HttpServletRequest} a method takes.
 */
class KeyStartupTests {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, WeirAutoConfiguration.class));

  /** The violations the failed start reported, by path. */
  private static Map<String, String> violations(AssertableApplicationContext context) {
    assertThat(context).hasFailed();
    Throwable failure = context.getStartupFailure();
    while (failure != null && !(failure instanceof InvalidWeirConfigurationException)) {
      failure = failure.getCause();
    }
    assertThat(failure).as("the start failure names the paths").isInstanceOf(InvalidWeirConfigurationException.class);
    return ((InvalidWeirConfigurationException) failure).violations().stream()
        .collect(Collectors.toMap(RuleViolation::field, RuleViolation::message));
  }

  @Test
  void keysThatReachedTheApplicationOrBurntCpuStopTheStartFromApplicationYaml() {
    runner.withInitializer(new ConfigDataApplicationContextInitializer())
        .withPropertyValues("spring.config.name=keys-startup-test").run(context -> {
          Map<String, String> violations = violations(context);
          assertThat(violations.get("weir.param-flow[0].key")).contains("#request.getServletContext() (at position 9)")
              .contains("read-only view of the request");
          assertThat(violations.get("weir.param-flow[1].key")).contains("#request.getServletContext()");
          assertThat(violations.get("weir.param-flow[2].key"))
              .contains("#request.getHeader('X-Api-Key').matches('(.*a){12}b') (at position 32)")
              .contains("is a String, whose methods here are");
          assertThat(violations.get("weir.param-flow[3].key")).contains("'x'.repeat(200000000) (at position 4)");
          assertThat(violations.get("weir.param-flow[4].key"))
              .contains("for a header write #request.getHeader('X-Api-Key')");
          assertThat(violations).as("the valid key of [5] is not named").doesNotContainKey("weir.param-flow[5].key")
              .hasSize(5);
        });
  }

  @Test
  void aKeyTooLongOrTooDeepToReadStopsTheStartNamingItsPath() {
    runner.withPropertyValues("weir.param-flow[0].resource=a", "weir.param-flow[0].count=1",
        "weir.param-flow[0].key='" + "x".repeat(10_001) + "'", "weir.param-flow[1].resource=a",
        "weir.param-flow[1].count=1", "weir.param-flow[1].key=" + "!".repeat(9_000) + "#p0",
        "weir.param-flow[2].resource=a", "weir.param-flow[2].count=1",
        "weir.param-flow[2].key=" + "(".repeat(400) + "#p0" + ")".repeat(400)).run(context -> {
          Map<String, String> violations = violations(context);
          assertThat(violations.get("weir.param-flow[0].key")).contains("is 10003 characters long; a key expression has"
              + " at most 1000");
          assertThat(violations.get("weir.param-flow[1].key")).contains("is 9003 characters long");
          assertThat(violations.get("weir.param-flow[2].key")).contains("nests deeper than 32 levels");
        });
  }

  @Test
  void aMethodsHttpServletRequestCannotBeWalkedInto() {
    runner.withUserConfiguration(ServletOperations.class).withPropertyValues("weir.param-flow[0].resource=servletOp",
        "weir.param-flow[0].count=1", "weir.param-flow[0].key=#request.servletContext.contextPath").run(context -> {
          Map<String, String> violations = violations(context);
          assertThat(violations.get("weir.param-flow[0].key")).contains("#request.servletContext (at position 9):"
              + " #request is a jakarta.servlet.http.HttpServletRequest, a platform or framework type");
        });
  }

  /**
   * Counting by an argument that stands for the call (a route's request view, a method's
   * {@code HttpServletRequest}) would give every call a bucket of its own and keep the live request
   * in the per-key table: refused, naming the path, for {@code param-index} as for keys.
   */
  @Test
  void countingByTheRequestItselfStopsTheStart() {
    runner.withUserConfiguration(ServletOperations.class).withPropertyValues(
        "weir.web.routes[0].resource=api", "weir.web.routes[0].path=/api/**",
        "weir.param-flow[0].resource=api", "weir.param-flow[0].count=1", "weir.param-flow[0].param-index=0",
        "weir.param-flow[1].resource=servletOp", "weir.param-flow[1].count=1",
        "weir.param-flow[2].resource=servletOp", "weir.param-flow[2].count=1", "weir.param-flow[2].param-index=1",
        "weir.param-flow[3].resource=api", "weir.param-flow[3].count=1", "weir.param-flow[3].param-index=1")
        .run(context -> {
          Map<String, String> violations = violations(context);
          assertThat(violations.get("weir.param-flow[0].param-index")).contains("is the request (#request)")
              .contains("#request.getHeader('X-Api-Key')");
          assertThat(violations.get("weir.param-flow[1].param-index"))
              .contains("is a jakarta.servlet.http.HttpServletRequest, which stands for one call");
          assertThat(violations).as("a method's String argument, a route's principal name: countable").hasSize(2);
        });
  }

  @Test
  void aValidKeyStarts() {
    runner.withUserConfiguration(ServletOperations.class).withPropertyValues("weir.param-flow[0].resource=servletOp",
        "weir.param-flow[0].count=1", "weir.param-flow[0].key=#tenant?.toLowerCase() ?: 'none'").run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(Weir.class).rules().rules("servletOp").paramFlow()).hasSize(1);
        });
  }

  @Configuration(proxyBeanMethods = false)
  static class ServletOperations {
    @Bean
    Operations operations() {
      return new Operations();
    }
  }

  static class Operations {
    @RateLimited("servletOp")
    public String op(HttpServletRequest request, String tenant) {
      return tenant;
    }
  }
}
