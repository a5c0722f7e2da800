package dev.weir.spring.metrics;

import dev.weir.spring.rules.RuleSources;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds {@value #FAILURES}, a function counter per rule source (tag {@code source} =
 * {@code application.yml}, {@code sentinel:flow-file}, {@code file:/path/rules.yml},
 * {@code endpoint}): how many times content of that source was refused as invalid, leaving the
 * rules in force as they were. It reads {@link RuleSources#failures(String)}; the common tags given
 * here are added to each.
 */
public final class RuleSourceMeterBinder implements MeterBinder {

  /** Name of the counter of refused contents of rule sources. */
  public static final String FAILURES = "weir.rules.source.failures";

  private final RuleSources sources;
  private final Tags tags;

  /**
   * Creates the binder.
   *
   * @param sources the rule sources counted
   * @param tags tags added to every meter, besides {@code source}
   */
  public RuleSourceMeterBinder(RuleSources sources, Iterable<Tag> tags) {
    this.sources = sources;
    this.tags = Tags.of(tags);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    for (String source : sources.sourceNames()) {
      FunctionCounter.builder(FAILURES, sources, s -> s.failures(source))
          .description("Contents of a rule source refused as invalid; the rules in force stayed as they were")
          .tags(tags).tag("source", source).register(registry);
    }
  }
}
