package dev.weir.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.FlowException;
import dev.weir.RuleRegistry;
import dev.weir.Ticker;
import dev.weir.Weir;
import dev.weir.annotation.RateLimited;
import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.spring.aop.RateLimitedAdvisor;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.test.ManualTicker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.util.TestPropertyValues;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import tools.jackson.databind.json.JsonMapper;

/** The auto-configuration, in contexts built for each case. */
class WeirAutoConfigurationTests {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, WeirAutoConfiguration.class));

  @Test
  void createsOneEngineTheAdvisorAndTheProperties() {
    runner.run(context -> {
      assertThat(context).hasSingleBean(Weir.class).hasSingleBean(RateLimitedAdvisor.class)
          .hasSingleBean(WeirProperties.class);
      assertThat(context.getBean(Weir.class).ticker()).isSameAs(Ticker.system());
    });
  }

  @Test
  void bindsWaitingBulkheadsAndCountBasedBreakers() {
    runner.withPropertyValues("weir.flow[0].resource=a", "weir.flow[0].grade=threads", "weir.flow[0].count=4",
        "weir.flow[0].max-queueing-time=250ms", "weir.flow[1].resource=b", "weir.flow[1].grade=threads",
        "weir.flow[1].count=2", "weir.flow[2].resource=c", "weir.flow[2].count=2",
        "weir.flow[2].control-behavior=queue", "weir.degrade[0].resource=a", "weir.degrade[0].strategy=error-ratio",
        "weir.degrade[0].threshold=0.5", "weir.degrade[0].window= 100 calls ").run(context -> {
          RuleRegistry rules = context.getBean(Weir.class).rules();
          assertThat(rules.rules("a").flow()).singleElement().satisfies(rule -> {
            assertThat(rule.maxQueueingTime()).isEqualTo(java.time.Duration.ofMillis(250));
            assertThat(rule.waitingBound()).as("max-queueing-count defaults to count").isEqualTo(4);
          });
          assertThat(rules.rules("b").flow()).singleElement().satisfies(rule -> {
            assertThat(rule.maxQueueingTime()).as("a threads rule waits only when told to").isZero();
            assertThat(rule.waitingBound()).isZero();
          });
          assertThat(rules.rules("c").flow()).singleElement().satisfies(
              rule -> assertThat(rule.maxQueueingTime()).as("queue keeps its default").isEqualTo(
                  java.time.Duration.ofMillis(500)));
          assertThat(rules.rules("a").degrade()).singleElement()
              .satisfies(rule -> assertThat(rule.windowCalls()).isEqualTo(100));
        });
  }

  @Test
  void weirShadowPutsEveryRuleInShadowModeUnlessTheRuleSaysOtherwise() {
    runner.withPropertyValues("weir.shadow=true", "weir.flow[0].resource=a", "weir.flow[0].count=1",
        "weir.flow[1].resource=b", "weir.flow[1].count=1", "weir.flow[1].shadow=false",
        "weir.degrade[0].resource=a", "weir.degrade[0].strategy=error-ratio", "weir.degrade[0].threshold=0.5",
        "weir.param-flow[0].resource=a",
        "weir.param-flow[0].count=1", "weir.authority[0].resource=a", "weir.authority[0].limit-app=x",
        "weir.system.max-qps=5").run(context -> {
          RuleRegistry rules = context.getBean(Weir.class).rules();
          assertThat(rules.rules("a").flow()).singleElement().satisfies(rule -> assertThat(rule.shadow()).isTrue());
          assertThat(rules.rules("a").degrade()).singleElement()
              .satisfies(rule -> assertThat(rule.shadow()).isTrue());
          assertThat(rules.rules("a").paramFlow()).singleElement()
              .satisfies(rule -> assertThat(rule.shadow()).isTrue());
          assertThat(rules.rules("a").authority()).singleElement()
              .satisfies(rule -> assertThat(rule.shadow()).isTrue());
          assertThat(rules.rules("b").flow()).singleElement().satisfies(rule -> assertThat(rule.shadow()).isFalse());
          assertThat(rules.systemRule().shadow()).isTrue();
        });
  }

  @Test
  void withoutWeirShadowOnlyRulesThatSaySoAreInShadowMode() {
    runner.withPropertyValues("weir.flow[0].resource=a", "weir.flow[0].count=1", "weir.flow[0].shadow=true",
        "weir.flow[1].resource=b", "weir.flow[1].count=1", "weir.system.max-qps=5").run(context -> {
          RuleRegistry rules = context.getBean(Weir.class).rules();
          assertThat(rules.rules("a").flow()).singleElement().satisfies(rule -> assertThat(rule.shadow()).isTrue());
          assertThat(rules.rules("b").flow()).singleElement().satisfies(rule -> assertThat(rule.shadow()).isFalse());
          assertThat(rules.systemRule().shadow()).isFalse();
        });
  }

  @Test
  void engineIsClosedWithTheContext() {
    runner.run(context -> {
      String destroyMethod = context.getBeanFactory().getBeanDefinition("weir").getDestroyMethodName();
      assertThat(destroyMethod).isEqualTo("close");
    });
  }

  @Test
  void loadsFlowRulesFromProperties() {
    runner.withPropertyValues("weir.flow[0].resource=createOrder", "weir.flow[0].count=5",
            "weir.flow[0].control-behavior=warm-up", "weir.flow[0].warm-up-period=20s",
            "weir.flow[1].resource=createOrder", "weir.flow[1].count=2", "weir.flow[1].grade=THREADS")
        .run(context -> assertThat(context.getBean(Weir.class).rules().rules("createOrder").flow()).containsExactly(
            FlowRule.builder("createOrder").count(5).controlBehavior(dev.weir.rule.ControlBehavior.WARM_UP)
                .warmUpPeriod(Duration.ofSeconds(20)).build(),
            FlowRule.threads("createOrder", 2)));
  }

  @Test
  void adaptiveRulesBindTheirBoundsAndNeedNoCount() {
    runner.withPropertyValues("weir.flow[0].resource=a", "weir.flow[0].grade=adaptive", "weir.flow[0].min-limit=2",
            "weir.flow[0].max-limit=40", "weir.flow[0].initial-limit=5", "weir.flow[1].resource=b",
            "weir.flow[1].grade=adaptive")
        .run(context -> {
          RuleRegistry rules = context.getBean(Weir.class).rules();
          assertThat(rules.rules("a").flow()).containsExactly(FlowRule.adaptive("a", 2, 40, 5));
          assertThat(rules.rules("b").flow()).singleElement().satisfies(rule -> assertThat(rule.startingLimit())
              .as("the defaults: 20 within 1..1000").isEqualTo(FlowRule.DEFAULT_INITIAL_LIMIT));
          assertThat(context.getBean(Weir.class).statistics("a").adaptiveLimit()).isEqualTo(5);
        });
  }

  @Test
  void invalidAdaptiveBoundsStopTheStartNamingTheirPath() {
    runner.withPropertyValues("weir.flow[0].resource=a", "weir.flow[0].grade=adaptive", "weir.flow[0].min-limit=5",
            "weir.flow[0].max-limit=2")
        .run(context -> assertThat(context).getFailure().rootCause().hasMessageContaining("weir.flow[0].max-limit"));
  }

  @Test
  void enumValuesBindCaseInsensitively() {
    runner.withPropertyValues("weir.flow[0].resource=a", "weir.flow[0].count=5", "weir.flow[0].grade=Qps",
            "weir.flow[0].control-behavior=WARM-UP-QUEUE", "weir.flow[0].strategy=chain",
            "weir.flow[0].ref-resource=web")
        .run(context -> {
          FlowRule rule = context.getBean(Weir.class).rules().rules("a").flow().get(0);
          assertThat(rule.controlBehavior()).isEqualTo(dev.weir.rule.ControlBehavior.WARM_UP_QUEUE);
          assertThat(rule.strategy()).isEqualTo(dev.weir.rule.FlowStrategy.CHAIN);
        });
  }

  @Test
  void disabledTurnsEverythingOff() {
    runner.withPropertyValues("weir.enabled=false").withUserConfiguration(GuardedConfiguration.class)
        .run(context -> {
          assertThat(context).doesNotHaveBean(Weir.class).doesNotHaveBean(RateLimitedAdvisor.class)
              .doesNotHaveBean(WeirProperties.class);
          Guarded guarded = context.getBean(Guarded.class);
          assertThat(AopUtils.isAopProxy(guarded)).isFalse();
          assertThat(guarded.call()).isEqualTo("called");
        });
  }

  @Test
  void backsOffWhenTheApplicationDefinesItsEngine() {
    runner.withUserConfiguration(OwnEngineConfiguration.class).run(context -> {
      assertThat(context).hasSingleBean(Weir.class);
      assertThat(context.getBean(Weir.class)).isSameAs(context.getBean(OwnEngineConfiguration.class).weir);
    });
  }

  @Test
  void backsOffForTheApplicationsAdvisor() {
    runner.withBean("myAdvisor", RateLimitedAdvisor.class, () -> new RateLimitedAdvisor(Weir.builder()::build))
        .run(context -> {
          assertThat(context).hasSingleBean(RateLimitedAdvisor.class).hasBean("myAdvisor")
              .doesNotHaveBean("rateLimitedAdvisor");
        });
  }

  @Test
  void anInvalidConfigurationStopsTheStartBeforeAnyRuleIsLoaded() {
    runner.withPropertyValues("weir.flow[0].resource=a", "weir.flow[0].count=5", "weir.flow[1].resource=b",
            "weir.flow[1].count=-1")
        .run(context -> assertThat(context).getFailure().rootCause()
            .isInstanceOf(InvalidWeirConfigurationException.class)
            .hasMessage("Invalid Weir configuration:\n\tweir.flow[1].count: must be a number >= 0, was -1.0"));
  }

  @Test
  void usesTheApplicationsTicker() {
    runner.withUserConfiguration(TickerConfiguration.class)
        .run(context -> assertThat(context.getBean(Weir.class).ticker()).isSameAs(context.getBean(Ticker.class)));
  }

  @Test
  void appliesBuilderCustomizers() {
    runner.withBean(WeirBuilderCustomizer.class, () -> builder -> builder.rules(RuleSet.of(FlowRule.qps("x", 7))))
        .run(context -> assertThat(context.getBean(Weir.class).rules().rules("x").flow()).hasSize(1));
  }

  @Test
  void guardsRateLimitedBeans() {
    runner.withUserConfiguration(GuardedConfiguration.class)
        .withPropertyValues("weir.flow[0].resource=guarded", "weir.flow[0].count=0").run(context -> {
          Guarded guarded = context.getBean(Guarded.class);
          assertThat(AopUtils.isCglibProxy(guarded)).isTrue();
          assertThatThrownBy(guarded::call).isInstanceOf(FlowException.class);
        });
  }

  @Test
  void guardsRateLimitedBeansWithoutAspectJ() {
    runner.withClassLoader(new FilteredClassLoader("org.aspectj"))
        .withUserConfiguration(GuardedConfiguration.class)
        .withPropertyValues("weir.flow[0].resource=guarded", "weir.flow[0].count=0").run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(AopConfigUtils.AUTO_PROXY_CREATOR_BEAN_NAME).getClass().getSimpleName())
              .isEqualTo("InfrastructureAdvisorAutoProxyCreator");
          assertThatThrownBy(context.getBean(Guarded.class)::call).isInstanceOf(FlowException.class);
        });
  }

  @Test
  void guardsRateLimitedBeansWithSpringAopAutoOff() {
    runner.withUserConfiguration(GuardedConfiguration.class)
        .withPropertyValues("spring.aop.auto=false", "weir.flow[0].resource=guarded", "weir.flow[0].count=0")
        .run(context -> assertThatThrownBy(context.getBean(Guarded.class)::call).isInstanceOf(FlowException.class));
  }

  @Test
  void startsWithoutActuatorMicrometerRedisOrWeb() {
    runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate", "io.micrometer",
            "org.springframework.data.redis", "org.springframework.web", "jakarta.servlet"))
        .withUserConfiguration(GuardedConfiguration.class)
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(Weir.class);
          assertThat(context.getBean(Guarded.class).call()).isEqualTo("called");
        });
  }

  @Test
  void durationBeyondItsBoundStopsTheStartNamingItsPropertyPath() {
    String[] properties = {"weir.flow[0].resource=a", "weir.flow[0].count=5",
        "weir.flow[0].control-behavior=queue", "weir.flow[0].max-queueing-time=200000d",
        "weir.param-flow[0].resource=a", "weir.param-flow[0].count=5", "weir.param-flow[0].duration=200000d",
        "weir.system.max-avg-rt=200000d"};
    runner.withPropertyValues(properties)
        .run(context -> {
          assertThat(context).hasFailed();
          Throwable failure = context.getStartupFailure();
          assertThat(failure).hasRootCauseInstanceOf(InvalidWeirConfigurationException.class);
          InvalidWeirConfigurationException invalid = (InvalidWeirConfigurationException) rootCause(failure);
          assertThat(invalid.violations()).map(Object::toString).containsExactlyInAnyOrder(
              "weir.flow[0].max-queueing-time: must be from 0ms to 1h, was PT4800000H",
              "weir.param-flow[0].duration: must be whole milliseconds from 1ms to 1d, was PT4800000H",
              "weir.system.max-avg-rt: must be from 0ms to 1h, was PT4800000H");
          StandardEnvironment environment = new StandardEnvironment();
          TestPropertyValues.of(properties).applyTo(environment);
          String report = new InvalidWeirConfigurationFailureAnalyzer(environment).analyze(failure).getDescription();
          assertThat(report).contains("weir.flow[0].max-queueing-time: must be from 0ms to 1h")
              .contains("(value '200000d'");
        });
  }

  private static Throwable rootCause(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  @Test
  void failureAnalyzersAreRegistered() {
    SpringFactoriesLoader.ArgumentResolver arguments = SpringFactoriesLoader.ArgumentResolver
        .of(BeanFactory.class, new DefaultListableBeanFactory())
        .and(Environment.class, new StandardEnvironment());
    List<String> analyzers = SpringFactoriesLoader.forDefaultResourceLocation(getClass().getClassLoader())
        .load(FailureAnalyzer.class, arguments, (type, name, failure) -> { /* others may need absent classes */ })
        .stream().map(analyzer -> analyzer.getClass().getName()).toList();
    assertThat(analyzers).contains("dev.weir.spring.aop.RateLimitedDeclarationFailureAnalyzer",
        "dev.weir.spring.autoconfigure.InvalidWeirConfigurationFailureAnalyzer");
  }

  @Test
  void clusterPropertyDefaultsAreTheEngineDefaults() {
    assertThat(new WeirProperties().getCluster().toOptions()).isEqualTo(ClusterOptions.DEFAULTS);
  }

  @Test
  @SuppressWarnings("unchecked")
  void configurationMetadataDescribesTheProperties() throws Exception {
    try (var in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      Map<String, Object> metadata = JsonMapper.builder().build().readValue(in, Map.class);
      Map<String, Map<String, Object>> properties = ((List<Map<String, Object>>) metadata.get("properties")).stream()
          .collect(Collectors.toMap(property -> (String) property.get("name"), property -> property));
      assertThat(properties).containsKeys("weir.enabled", "weir.max-resources", "weir.statistics.sample-count",
          "weir.flow", "weir.degrade", "weir.param-flow", "weir.authority", "weir.system.max-qps",
          "weir.web.origin-header", "weir.cluster.enabled", "weir.cluster.fallback", "weir.cluster.timeout",
          "weir.cluster.failure-threshold", "weir.cluster.open-duration", "weir.cluster.max-in-flight",
          "weir.metrics.tags");
      assertThat(properties.get("weir.cluster.max-in-flight").get("defaultValue")).isEqualTo(256);
      assertThat(properties.values()).as("every key is supported now")
          .allSatisfy(property -> assertThat(String.valueOf(property.get("description")))
              .doesNotContainIgnoringCase("not supported"));
      assertThat(properties.get("weir.degrade").get("description")).asString().startsWith("Circuit breakers");
      assertThat(properties.get("weir.web.origin-header").get("description")).asString()
          .startsWith("Request header that carries the caller's origin");
      assertThat(properties.get("weir.max-resources").get("defaultValue")).isEqualTo(6000);
      assertThat(properties.get("weir.cluster.fallback").get("defaultValue")).isEqualTo("local");
      assertThat((List<Map<String, Object>>) metadata.get("hints"))
          .anySatisfy(hint -> assertThat(hint.get("name")).isEqualTo("weir.cluster.fallback"));
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class GuardedConfiguration {
    @Bean
    Guarded guarded() {
      return new Guarded();
    }
  }

  /** Public, so that a class-based proxy of it can be made in a FilteredClassLoader. */
  public static class Guarded {
    @RateLimited("guarded")
    public String call() {
      return "called";
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnEngineConfiguration {
    final Weir weir = Weir.builder().build();

    @Bean
    Weir myWeir() {
      return weir;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class TickerConfiguration {
    @Bean
    ManualTicker manualTicker() {
      return new ManualTicker();
    }
  }
}
