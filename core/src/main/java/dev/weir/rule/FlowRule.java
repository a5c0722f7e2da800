package dev.weir.rule;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A flow rule: a rate ({@link FlowGrade#QPS}), concurrency ({@link FlowGrade#THREADS}) or adaptive
 * concurrency ({@link FlowGrade#ADAPTIVE}) limit on one resource. An immutable value; build one with {@link #builder(String)} and check it with
 * {@link FlowRuleValidator} (the engine refuses invalid rules with {@link InvalidRulesException}).
 *
 * <p>The components mirror the YAML keys under {@code weir.flow[*]}. A null component passed to the
 * canonical constructor is replaced by its default, so that partially filled rules can still be
 * validated field by field.
 *
 * @param resource the guarded resource
 * @param count the limit; {@code >= 0}, and {@code 0} refuses every call
 * @param grade what is counted
 * @param interval {@code QPS} only: the span that {@code count} applies to (default 1 s)
 * @param exact {@code QPS} + {@code REJECT} only: never more than {@code count} admissions in any
 *     span of length {@code interval}, at the cost of memory proportional to {@code count}
 * @param controlBehavior what happens to calls above the rate
 * @param warmUpPeriod warm-up behaviors: how long the rate takes to rise from cold to {@code count}
 * @param coldFactor warm-up behaviors: the cold rate is {@code count / coldFactor}
 * @param maxQueueingTime queue behaviors: the longest a call waits for its slot (default 500 ms);
 *     {@code THREADS}: the longest a call over the limit waits for a place to free up, in FIFO
 *     order within its criticality (default 0: refused at once)
 * @param strategy which traffic the rule looks at
 * @param refResource the other resource ({@code RELATED}) or the context name ({@code CHAIN})
 * @param limitApp {@code default} (every caller together), {@code other} (each caller not named by
 *     another rule of this resource, separately) or the name of one origin
 * @param clusterMode whether {@code count} is shared by every instance of the application
 * @param shadow whether the rule only counts what it would refuse (see {@link Rule#shadow()})
 * @param name the rule's name, or null: its policy's name in HTTP's {@code RateLimit} headers, and
 *     what the endpoint and logs show (see {@link RuleNames} for what a name may hold). A name
 *     changes nothing the rule counts: a replacement that changes only the name keeps its state
 * @param minLimit {@code ADAPTIVE} only: the least the limit goes down to (default 1)
 * @param maxLimit {@code ADAPTIVE} only: the most calls ever inside at once, a hard cap (default
 *     1000, at most {@value #MAX_ADAPTIVE_LIMIT})
 * @param initialLimit {@code ADAPTIVE} only: the limit before anything was measured; 0 (the
 *     default) for {@value #DEFAULT_INITIAL_LIMIT} brought into {@code [minLimit, maxLimit]}
 * @param maxQueueingCount {@code THREADS} with a {@code maxQueueingTime}: the most calls waiting at
 *     once (0, the default, for {@code count}); a call beyond it is refused at once
 */
public record FlowRule(
    String resource,
    double count,
    FlowGrade grade,
    Duration interval,
    boolean exact,
    ControlBehavior controlBehavior,
    Duration warmUpPeriod,
    int coldFactor,
    Duration maxQueueingTime,
    FlowStrategy strategy,
    @Nullable String refResource,
    String limitApp,
    boolean clusterMode,
    boolean shadow,
    @Nullable String name,
    int minLimit,
    int maxLimit,
    int initialLimit,
    int maxQueueingCount)
    implements ResourceRule {

  /** {@code limit-app} value: the rule applies to every caller, counted together. */
  public static final String LIMIT_APP_DEFAULT = "default";

  /** {@code limit-app} value: each origin that no other rule of the resource names, counted apart. */
  public static final String LIMIT_APP_OTHER = "other";

  /** Largest {@code count} an {@code exact} rule accepts: it keeps one timestamp per permit. */
  public static final int EXACT_MAX_COUNT = 100_000;

  /** Default of {@link #interval()}. */
  public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(1);

  /** Default of {@link #warmUpPeriod()}. */
  public static final Duration DEFAULT_WARM_UP_PERIOD = Duration.ofSeconds(10);

  /** Default of {@link #coldFactor()}. */
  public static final int DEFAULT_COLD_FACTOR = 3;

  /** Default of {@link #maxQueueingTime()} for the queue behaviors ({@code THREADS} rules: zero). */
  public static final Duration DEFAULT_MAX_QUEUEING_TIME = Duration.ofMillis(500);

  /** Largest {@link #maxQueueingCount()}: each waiting call is a parked thread. */
  public static final int MAX_QUEUEING_COUNT = 100_000;

  /** Default of {@link #minLimit()}. */
  public static final int DEFAULT_MIN_LIMIT = 1;

  /** Default of {@link #maxLimit()}. */
  public static final int DEFAULT_MAX_LIMIT = 1000;

  /** The limit an adaptive rule starts at when {@link #initialLimit()} is 0, brought into its bounds. */
  public static final int DEFAULT_INITIAL_LIMIT = 20;

  /**
   * The largest {@link #maxLimit()}: a million calls inside one resource at once is far beyond any
   * service, and the engine packs an adaptive limit into 20 bits of one word.
   */
  public static final int MAX_ADAPTIVE_LIMIT = 1_000_000;

  /** Replaces null components by their defaults, and a blank name by none. */
  public FlowRule {
    resource = resource == null ? "" : resource;
    grade = grade == null ? FlowGrade.QPS : grade;
    interval = interval == null ? DEFAULT_INTERVAL : interval;
    controlBehavior = controlBehavior == null ? ControlBehavior.REJECT : controlBehavior;
    warmUpPeriod = warmUpPeriod == null ? DEFAULT_WARM_UP_PERIOD : warmUpPeriod;
    maxQueueingTime = maxQueueingTime != null ? maxQueueingTime
        : grade == FlowGrade.THREADS ? Duration.ZERO : DEFAULT_MAX_QUEUEING_TIME;
    strategy = strategy == null ? FlowStrategy.DIRECT : strategy;
    limitApp = limitApp == null ? LIMIT_APP_DEFAULT : limitApp;
    name = name == null || name.isBlank() ? null : name;
  }

  /** A rule without a name that is not in shadow mode: the components before {@code shadow}. */
  public FlowRule(String resource, double count, FlowGrade grade, Duration interval, boolean exact,
      ControlBehavior controlBehavior, Duration warmUpPeriod, int coldFactor, Duration maxQueueingTime,
      FlowStrategy strategy, @Nullable String refResource, String limitApp, boolean clusterMode) {
    this(resource, count, grade, interval, exact, controlBehavior, warmUpPeriod, coldFactor, maxQueueingTime, strategy,
        refResource, limitApp, clusterMode, false, null);
  }

  /** A rule with the default adaptive bounds: the components before {@code minLimit}. */
  public FlowRule(String resource, double count, FlowGrade grade, Duration interval, boolean exact,
      ControlBehavior controlBehavior, Duration warmUpPeriod, int coldFactor, Duration maxQueueingTime,
      FlowStrategy strategy, @Nullable String refResource, String limitApp, boolean clusterMode, boolean shadow,
      @Nullable String name) {
    this(resource, count, grade, interval, exact, controlBehavior, warmUpPeriod, coldFactor, maxQueueingTime, strategy,
        refResource, limitApp, clusterMode, shadow, name, DEFAULT_MIN_LIMIT, DEFAULT_MAX_LIMIT, 0);
  }

  /** A rule whose waiting calls are bounded by the default: the components before {@code maxQueueingCount}. */
  public FlowRule(String resource, double count, FlowGrade grade, Duration interval, boolean exact,
      ControlBehavior controlBehavior, Duration warmUpPeriod, int coldFactor, Duration maxQueueingTime,
      FlowStrategy strategy, @Nullable String refResource, String limitApp, boolean clusterMode, boolean shadow,
      @Nullable String name, int minLimit, int maxLimit, int initialLimit) {
    this(resource, count, grade, interval, exact, controlBehavior, warmUpPeriod, coldFactor, maxQueueingTime, strategy,
        refResource, limitApp, clusterMode, shadow, name, minLimit, maxLimit, initialLimit, 0);
  }

  /**
   * {@code THREADS} only: the most calls waiting at once for a place, {@link #maxQueueingCount()}
   * or, when that is 0, {@code count}; 0 when calls over the limit never wait.
   */
  public int waitingBound() {
    if (grade != FlowGrade.THREADS || maxQueueingTime.isZero() || maxQueueingTime.isNegative()) {
      return 0;
    }
    return maxQueueingCount != 0 ? maxQueueingCount : (int) Math.min(count, MAX_QUEUEING_COUNT);
  }

  @Override
  public FlowRule withShadow(boolean shadow) {
    return shadow == this.shadow ? this : toBuilder().shadow(shadow).build();
  }

  /** Returns this rule with {@link #name()} set to {@code name} (null or blank for none), everything else equal. */
  public FlowRule withName(@Nullable String name) {
    return Objects.equals(name, this.name) ? this : toBuilder().name(name).build();
  }

  /** Returns a builder for a rule on {@code resource}, with every other field at its default. */
  public static Builder builder(String resource) {
    return new Builder(resource);
  }

  /** Returns a rejecting rule of {@code count} calls per second on {@code resource}. */
  public static FlowRule qps(String resource, double count) {
    return builder(resource).count(count).build();
  }

  /** Returns a concurrency limit of {@code count} calls inside {@code resource} at once. */
  public static FlowRule threads(String resource, int count) {
    return builder(resource).grade(FlowGrade.THREADS).count(count).build();
  }

  /**
   * Returns an adaptive concurrency limit on {@code resource}: it starts at {@code initialLimit}
   * and follows the resource's latency and throughput, never below {@code minLimit} nor above
   * {@code maxLimit}.
   */
  public static FlowRule adaptive(String resource, int minLimit, int maxLimit, int initialLimit) {
    return builder(resource).grade(FlowGrade.ADAPTIVE).minLimit(minLimit).maxLimit(maxLimit)
        .initialLimit(initialLimit).build();
  }

  /**
   * The limit an adaptive rule starts at: {@link #initialLimit()}, or when it is 0,
   * {@value #DEFAULT_INITIAL_LIMIT} brought into {@code [minLimit, maxLimit]}.
   */
  public int startingLimit() {
    return initialLimit != 0 ? initialLimit : Math.max(minLimit, Math.min(maxLimit, DEFAULT_INITIAL_LIMIT));
  }

  /** Returns a builder that starts from this rule. */
  public Builder toBuilder() {
    Builder builder = new Builder(resource);
    builder.count = count;
    builder.grade = grade;
    builder.interval = interval;
    builder.exact = exact;
    builder.controlBehavior = controlBehavior;
    builder.warmUpPeriod = warmUpPeriod;
    builder.coldFactor = coldFactor;
    builder.maxQueueingTime = maxQueueingTime;
    builder.strategy = strategy;
    builder.refResource = refResource;
    builder.limitApp = limitApp;
    builder.clusterMode = clusterMode;
    builder.shadow = shadow;
    builder.name = name;
    builder.minLimit = minLimit;
    builder.maxLimit = maxLimit;
    builder.initialLimit = initialLimit;
    builder.maxQueueingCount = maxQueueingCount;
    return builder;
  }

  @Override
  public String toString() {
    StringBuilder text = new StringBuilder("FlowRule{resource=").append(resource);
    if (name != null) {
      text.append(", name=").append(name);
    }
    if (grade == FlowGrade.ADAPTIVE) {
      text.append(", grade=ADAPTIVE, min-limit=").append(minLimit).append(", max-limit=").append(maxLimit)
          .append(", initial-limit=").append(startingLimit());
    } else {
      text.append(", count=").append(count).append(", grade=").append(grade);
    }
    if (waitingBound() > 0) {
      text.append(", max-queueing-time=").append(maxQueueingTime).append(", max-queueing-count=").append(waitingBound());
    }
    if (grade == FlowGrade.QPS) {
      text.append(", interval=").append(interval).append(", control-behavior=").append(controlBehavior);
      if (exact) {
        text.append(", exact");
      }
    }
    if (strategy != FlowStrategy.DIRECT) {
      text.append(", strategy=").append(strategy).append(", ref-resource=").append(refResource);
    }
    if (!LIMIT_APP_DEFAULT.equals(limitApp)) {
      text.append(", limit-app=").append(limitApp);
    }
    if (clusterMode) {
      text.append(", cluster-mode");
    }
    if (shadow) {
      text.append(", shadow");
    }
    return text.append('}').toString();
  }

  /** Builds a {@link FlowRule}; every field starts at its default. Not thread-safe. */
  public static final class Builder {
    private final String resource;
    private double count;
    private FlowGrade grade = FlowGrade.QPS;
    private Duration interval = DEFAULT_INTERVAL;
    private boolean exact;
    private ControlBehavior controlBehavior = ControlBehavior.REJECT;
    private Duration warmUpPeriod = DEFAULT_WARM_UP_PERIOD;
    private int coldFactor = DEFAULT_COLD_FACTOR;
    private @Nullable Duration maxQueueingTime;
    private int maxQueueingCount;
    private FlowStrategy strategy = FlowStrategy.DIRECT;
    private @Nullable String refResource;
    private String limitApp = LIMIT_APP_DEFAULT;
    private boolean clusterMode;
    private boolean shadow;
    private @Nullable String name;
    private int minLimit = DEFAULT_MIN_LIMIT;
    private int maxLimit = DEFAULT_MAX_LIMIT;
    private int initialLimit;

    private Builder(String resource) {
      this.resource = Objects.requireNonNull(resource, "resource");
    }

    /** Sets the limit. */
    public Builder count(double count) {
      this.count = count;
      return this;
    }

    /** Sets what is counted. */
    public Builder grade(FlowGrade grade) {
      this.grade = grade;
      return this;
    }

    /** Sets the span that a QPS count applies to. */
    public Builder interval(Duration interval) {
      this.interval = interval;
      return this;
    }

    /** Sets whether no span of {@code interval} may ever hold more than {@code count} admissions. */
    public Builder exact(boolean exact) {
      this.exact = exact;
      return this;
    }

    /** Sets what happens above the rate. */
    public Builder controlBehavior(ControlBehavior controlBehavior) {
      this.controlBehavior = controlBehavior;
      return this;
    }

    /** Sets the warm-up period. */
    public Builder warmUpPeriod(Duration warmUpPeriod) {
      this.warmUpPeriod = warmUpPeriod;
      return this;
    }

    /** Sets the cold factor of warm-up. */
    public Builder coldFactor(int coldFactor) {
      this.coldFactor = coldFactor;
      return this;
    }

    /** Sets the longest wait of a queued call. */
    public Builder maxQueueingTime(Duration maxQueueingTime) {
      this.maxQueueingTime = maxQueueingTime;
      return this;
    }

    /** Sets which traffic the rule looks at. */
    public Builder strategy(FlowStrategy strategy) {
      this.strategy = strategy;
      return this;
    }

    /** Sets the related resource or the chain's context name. */
    public Builder refResource(@Nullable String refResource) {
      this.refResource = refResource;
      return this;
    }

    /** Sets which callers the rule applies to. */
    public Builder limitApp(String limitApp) {
      this.limitApp = limitApp;
      return this;
    }

    /** Sets whether the count is shared by every instance. */
    public Builder clusterMode(boolean clusterMode) {
      this.clusterMode = clusterMode;
      return this;
    }

    /** Sets whether the rule only counts what it would refuse. */
    public Builder shadow(boolean shadow) {
      this.shadow = shadow;
      return this;
    }

    /** Sets the rule's name; null or blank for none. */
    public Builder name(@Nullable String name) {
      this.name = name;
      return this;
    }

    /** Sets the least an adaptive limit goes down to. */
    public Builder minLimit(int minLimit) {
      this.minLimit = minLimit;
      return this;
    }

    /** Sets the hard cap of an adaptive limit. */
    public Builder maxLimit(int maxLimit) {
      this.maxLimit = maxLimit;
      return this;
    }

    /** Sets the limit an adaptive rule starts at; 0 for the default. */
    public Builder initialLimit(int initialLimit) {
      this.initialLimit = initialLimit;
      return this;
    }

    /** Sets the most calls of a {@code THREADS} rule waiting at once; 0 for {@code count}. */
    public Builder maxQueueingCount(int maxQueueingCount) {
      this.maxQueueingCount = maxQueueingCount;
      return this;
    }

    /** Returns the rule; it is not validated here. */
    public FlowRule build() {
      return new FlowRule(resource, count, grade, interval, exact, controlBehavior, warmUpPeriod, coldFactor,
          maxQueueingTime, strategy, refResource, limitApp, clusterMode, shadow, name, minLimit, maxLimit, initialLimit,
          maxQueueingCount);
    }
  }

  /** Returns {@link RuleKind#FLOW}. */
  @Override
  public RuleKind kind() {
    return RuleKind.FLOW;
  }
}
