package dev.weir.spring.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.spring.properties.RuleChangeLog;
import dev.weir.spring.rules.RuleSources;
import dev.weir.spring.test.RuleInputs;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Fuzzes the endpoint's write path without HTTP: whatever body arrives, turned into the operation's
 * argument as both web stacks do ({@link PostedBody#rulesArgument}) and handed to
 * {@link WeirEndpoint#replace} of the application's real engine and rule sources, the outcome is the
 * resource afterwards or a refusal with at least one violation, never an exception, within
 * {@link RuleInputs#BOUND}. Inputs: rule-shaped documents with hostile names and values, valid
 * bodies mutated, and text of any sort. Seeds are fixed; tries come from junit-platform.properties.
 */
class EndpointWriteFuzzTests {

  private static ConfigurableApplicationContext context;
  private static WeirEndpoint endpoint;

  @BeforeContainer
  static void start() {
    context = new SpringApplicationBuilder(RuleWriteTestApplication.class).web(WebApplicationType.NONE)
        .run("--spring.config.name=rule-write-test", "--logging.level.dev.weir=WARN");
    endpoint = new WeirEndpoint(context.getBean(Weir.class), context.getBean(RuleSources.class), false,
        new RuleChangeLog(null));
  }

  @AfterContainer
  static void stop() {
    context.close();
  }

  private static void replace(String body) {
    WeirEndpoint.Replacement outcome = RuleInputs.answeredInTime(body, () -> endpoint.replace(SecurityContext.NONE,
        "fuzzed", PostedBody.rulesArgument(body.getBytes(StandardCharsets.UTF_8), Map.<String, List<String>>of())));
    assertThat(outcome.done() == null).as("exactly one of done and refused: %s", body)
        .isNotEqualTo(outcome.refused() == null);
    if (outcome.refused() != null) {
      assertThat(outcome.refused().violations()).as(body).isNotEmpty();
      assertThat(outcome.refused().status()).isEqualTo(400);
    }
  }

  @Property(seed = "2511202601")
  void aRuleShapedDocumentIsAppliedOrRefused(@ForAll("documents") Object document) {
    replace(RuleInputs.json(document));
  }

  @Property(seed = "2511202602")
  void aMutatedBodyIsAppliedOrRefused(@ForAll("mutatedBodies") String body) {
    replace(body);
  }

  @Property(seed = "2511202603")
  void anyTextIsRefused(@ForAll("texts") String body) {
    replace(body);
  }

  @Provide
  Arbitrary<Object> documents() {
    return RuleInputs.documents();
  }

  @Provide
  Arbitrary<String> mutatedBodies() {
    return RuleInputs.mutated(RuleInputs.validJsonBodies());
  }

  @Provide
  Arbitrary<String> texts() {
    return RuleInputs.texts();
  }
}
