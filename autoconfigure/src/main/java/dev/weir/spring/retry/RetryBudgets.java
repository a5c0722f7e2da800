package dev.weir.spring.retry;

import dev.weir.Ticker;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.retry.RetryListener;
import org.springframework.core.retry.RetryTemplate;
import org.springframework.core.retry.support.CompositeRetryListener;

/**
 * The retry budgets of an application, one {@link RetryBudget} per resource, all with the same
 * ratio, window and floor ({@code weir.retry-budget.*}). A resource is a {@code @Retryable} method
 * ({@code SimpleClassName.methodName}) or a {@link RetryTemplate} (its bean name, or the name given
 * to {@link #apply}).
 *
 * <p>Memory is bounded: at most {@value #MAX_RESOURCES} resources get a budget of their own; further
 * names share one budget, {@value #OVERFLOW}, and a warning is logged once.
 *
 * <p>Without budgets ({@link #none()}) nothing is counted, but a Weir refusal is still never retried.
 */
public final class RetryBudgets {

  /** The most resources with a budget of their own. */
  public static final int MAX_RESOURCES = 1000;

  /** The budget shared by resources beyond {@link #MAX_RESOURCES}. */
  public static final String OVERFLOW = "(other retried resources)";

  private static final Log LOG = LogFactory.getLog(RetryBudgets.class);

  private final @Nullable Ticker ticker;
  private final double ratio;
  private final Duration window;
  private final double minPerSecond;
  private final ConcurrentHashMap<String, RetryBudget> budgets = new ConcurrentHashMap<>();
  private final AtomicBoolean warned = new AtomicBoolean();

  private RetryBudgets(@Nullable Ticker ticker, double ratio, Duration window, double minPerSecond) {
    this.ticker = ticker;
    this.ratio = ratio;
    this.window = window;
    this.minPerSecond = minPerSecond;
  }

  /**
   * Returns budgets with these settings; see {@link RetryBudget#RetryBudget}.
   *
   * @throws IllegalArgumentException when a value is out of range
   */
  public static RetryBudgets of(Ticker ticker, double ratio, Duration window, double minPerSecond) {
    new RetryBudget(ticker, ratio, window, minPerSecond);
    return new RetryBudgets(ticker, ratio, window, minPerSecond);
  }

  /** Returns no budgets: retries are not counted, and only refusals are kept from being retried. */
  public static RetryBudgets none() {
    return new RetryBudgets(null, 0, RetryBudget.MIN_WINDOW, 0);
  }

  /** Whether there are budgets at all. */
  public boolean enabled() {
    return ticker != null;
  }

  /**
   * Returns the budget of {@code resource}, made on first use; null without budgets.
   *
   * @param resource the resource name
   */
  public @Nullable RetryBudget budget(String resource) {
    Objects.requireNonNull(resource, "resource");
    Ticker time = ticker;
    if (time == null) {
      return null;
    }
    RetryBudget budget = budgets.get(resource);
    if (budget != null) {
      return budget;
    }
    String name = resource;
    if (budgets.size() >= MAX_RESOURCES) {
      name = OVERFLOW;
      if (warned.compareAndSet(false, true)) {
        LOG.warn("More than " + MAX_RESOURCES + " resources are retried; '" + resource
            + "' and further ones share the retry budget '" + OVERFLOW + "'");
      }
    }
    return budgets.computeIfAbsent(name, ignored -> new RetryBudget(time, ratio, window, minPerSecond));
  }

  /** Returns the names of the resources that have a budget. */
  public Set<String> resources() {
    return Set.copyOf(budgets.keySet());
  }

  /**
   * Puts {@code template} under the budget of {@code resource}: its retry policy is wrapped so that a
   * Weir refusal is never retried and a retry over budget is not made (the template gives up, its
   * {@code RetryException} caused by the last exception), and its listener counts first attempts.
   * Applying it again replaces the resource. A policy or listener set on the template afterwards
   * replaces the budget's.
   *
   * @param resource the resource the template's retries count against
   * @param template the template
   * @return the template
   */
  public RetryTemplate apply(String resource, RetryTemplate template) {
    boolean budgeted = template.getRetryPolicy() instanceof BudgetedRetryPolicy;
    template.setRetryPolicy(new BudgetedRetryPolicy(template.getRetryPolicy(), budget(resource)));
    if (!budgeted) {
      RetryListener listener = template.getRetryListener();
      CompositeRetryListener listeners = new CompositeRetryListener();
      listeners.addListener(FirstAttempts.INSTANCE);
      listeners.addListener(listener);
      template.setRetryListener(listeners);
    }
    return template;
  }

  @Override
  public String toString() {
    return ticker == null ? "RetryBudgets[none]"
        : "RetryBudgets[ratio=" + ratio + ", window=" + window + ", minPerSecond=" + minPerSecond + "]";
  }
}
