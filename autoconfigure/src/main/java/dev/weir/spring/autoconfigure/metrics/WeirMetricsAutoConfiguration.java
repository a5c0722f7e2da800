package dev.weir.spring.autoconfigure.metrics;

import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.aop.RateLimitedAdvisor;
import dev.weir.spring.metrics.RuleSourceMeterBinder;
import dev.weir.spring.metrics.SettleMeterBinder;
import dev.weir.spring.metrics.WeirMeterBinder;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.rules.RuleSources;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import java.util.List;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Auto-configuration of Weir's meters: a {@link WeirMeterBinder} bean, which Spring Boot binds to
 * the application's {@link MeterRegistry} (never to Micrometer's global registry), with the tags of
 * {@code weir.metrics.tags} on every meter. Applies when Micrometer is present and the application
 * has a {@link Weir} engine and a meter registry; a {@link WeirMeterBinder} bean of the
 * application's replaces it. With rule sources, a {@link RuleSourceMeterBinder} counts their refused
 * contents ({@code weir.rules.source.failures}); with {@code @RateLimited} methods, a
 * {@link SettleMeterBinder} counts the calls whose settle expression gave no cost
 * ({@code weir.settle.failures}).
 */
@AutoConfiguration(after = WeirAutoConfiguration.class, afterName = {
    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({Weir.class, MeterRegistry.class})
public final class WeirMetricsAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  WeirMeterBinder weirMeterBinder(Weir weir, WeirProperties properties) {
    List<Tag> tags = properties.getMetrics().getTags().entrySet().stream()
        .map(tag -> Tag.of(tag.getKey(), tag.getValue()))
        .toList();
    return new WeirMeterBinder(weir, tags);
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(RuleSources.class)
  RuleSourceMeterBinder weirRuleSourceMeterBinder(RuleSources sources, WeirProperties properties) {
    List<Tag> tags = properties.getMetrics().getTags().entrySet().stream()
        .map(tag -> Tag.of(tag.getKey(), tag.getValue()))
        .toList();
    return new RuleSourceMeterBinder(sources, tags);
  }

  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(RateLimitedAdvisor.class)
  SettleMeterBinder weirSettleMeterBinder(RateLimitedAdvisor advisor, WeirProperties properties) {
    List<Tag> tags = properties.getMetrics().getTags().entrySet().stream()
        .map(tag -> Tag.of(tag.getKey(), tag.getValue()))
        .toList();
    return new SettleMeterBinder(advisor.settleFailures(), tags);
  }
}
