package dev.weir.spring.metrics;

import dev.weir.spring.aop.SettleFailures;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Binds {@value #FAILURES}, a function counter per resource of a {@code @RateLimited} method with a
 * {@code settle} expression (tag {@code resource}): the calls that kept their estimate because the
 * expression gave no cost (a null result, a failed evaluation, a value that is not a whole number of
 * 0 or more). A resource whose class is inspected after binding gets its counter then. It reads
 * {@link SettleFailures#failures(String)}; the common tags given here are added to each.
 */
public final class SettleMeterBinder implements MeterBinder {

  /** Name of the counter of calls whose settle expression gave no cost. */
  public static final String FAILURES = "weir.settle.failures";

  private final SettleFailures failures;
  private final Tags tags;

  /**
   * Creates the binder.
   *
   * @param failures the counts of the settle expressions' failures, per resource
   * @param tags tags added to every meter, besides {@code resource}
   */
  public SettleMeterBinder(SettleFailures failures, Iterable<Tag> tags) {
    this.failures = failures;
    this.tags = Tags.of(tags);
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    failures.onResource(resource -> FunctionCounter.builder(FAILURES, failures, f -> f.failures(resource))
        .description("Calls of a Weir resource that kept their estimate: the settle expression gave no cost")
        .tags(tags).tag("resource", resource).register(registry));
  }
}
