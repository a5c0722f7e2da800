package dev.weir.spring.autoconfigure.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.rules.RuleSources;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * With Spring Cloud's context on the classpath, an {@link EnvironmentChangeEvent} naming a
 * {@code weir.*} key re-binds and re-applies the rules, validated as at start; without it, nothing
 * of this is there. The environment is changed as a refresh changes it, then the event Spring
 * Cloud publishes after a refresh is published.
 */
@ExtendWith(OutputCaptureExtension.class)
class WeirRefreshAutoConfigurationTests {

  private final ApplicationContextRunner contexts = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirRefreshAutoConfiguration.class))
      .withPropertyValues("weir.flow[0].resource=orders", "weir.flow[0].count=10");

  private static double count(ConfigurableApplicationContext context) {
    return ((FlowRule) context.getBean(Weir.class).rules().rules("orders").flow().get(0)).count();
  }

  private static void refresh(ConfigurableApplicationContext context, String... pairs) {
    TestPropertyValues.of(pairs).applyTo(context.getEnvironment());
    Set<String> keys = new java.util.HashSet<>();
    for (String pair : pairs) {
      keys.add(pair.substring(0, pair.indexOf('=')));
    }
    context.publishEvent(new EnvironmentChangeEvent(context, keys));
  }

  @Test
  void aRefreshOfWeirKeysReappliesTheRules(CapturedOutput output) {
    contexts.run(context -> {
      assertThat(count(context)).isEqualTo(10);
      refresh(context, "weir.flow[0].count=25");
      assertThat(count(context)).isEqualTo(25);
      assertThat(output).contains("Rules of 'orders' replaced (source: refresh");
    });
  }

  @Test
  void anInvalidRefreshChangesNothingAndIsShownUntilAValidOneArrives() {
    contexts.run(context -> {
      RuleSources sources = context.getBean(RuleSources.class);
      refresh(context, "weir.flow[0].count=-5");
      assertThat(count(context)).isEqualTo(10);
      assertThat(sources.status().get(RuleSources.APPLICATION)).contains("weir.flow[0].count");
      assertThat(sources.failures(RuleSources.APPLICATION)).isEqualTo(1);
      refresh(context, "weir.flow[0].count=abc");
      assertThat(count(context)).isEqualTo(10);
      assertThat(sources.status().get(RuleSources.APPLICATION)).contains("weir.flow[0].count");
      assertThat(sources.failures(RuleSources.APPLICATION)).isEqualTo(2);
      refresh(context, "weir.flow[0].count=30");
      assertThat(count(context)).isEqualTo(30);
      assertThat(sources.status().get(RuleSources.APPLICATION)).isEqualTo("ok");
    });
  }

  @Test
  void aRefreshWithAMisspeltKeyChangesNothingAndNamesIt() {
    contexts.run(context -> {
      RuleSources sources = context.getBean(RuleSources.class);
      refresh(context, "weir.flow[0].count=25", "weir.flow[0].intervall=10s");
      assertThat(count(context)).isEqualTo(10);
      assertThat(sources.status().get(RuleSources.APPLICATION))
          .contains("weir.flow[0].intervall: unknown key (did you mean 'interval'?)");
    });
    contexts.withPropertyValues("weir.strict-keys=false").run(context -> {
      refresh(context, "weir.flow[0].count=25", "weir.flow[0].intervall=10s");
      assertThat(count(context)).isEqualTo(25);
    });
  }

  @Test
  void aRefreshOfOtherKeysLeavesTheRulesAlone() {
    contexts.run(context -> {
      TestPropertyValues.of("weir.flow[0].count=99").applyTo(context.getEnvironment());
      context.publishEvent(new EnvironmentChangeEvent(context, Set.of("server.port")));
      assertThat(count(context)).isEqualTo(10);
    });
  }

  @Test
  void withoutSpringCloudThereIsNoRefresh() {
    contexts.withClassLoader(new FilteredClassLoader(EnvironmentChangeEvent.class))
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context).doesNotHaveBean(WeirRulesRefresher.class);
          assertThat(count(context)).isEqualTo(10);
        });
  }
}
