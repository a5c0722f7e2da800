package dev.weir.rule;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A hot-parameter limit: a separate limit for each value of one argument of the call. For
 * {@code QPS}, each value has a token bucket of {@code count + burst} permits refilled at
 * {@code count} per {@code duration}; with {@code QUEUE} the value's calls are instead spaced
 * {@code duration / count} apart and wait up to {@code maxQueueingTime}. For {@code THREADS}, each
 * value may have {@code count} calls inside at once. A collection or array argument counts each
 * element. An argument can choose its own key by implementing {@code dev.weir.ParamFlowKey}. Instead
 * of an argument, a rule may name its key with an expression ({@code key}), which the engine's
 * {@code KeyExpressions} compiles (the Spring Boot starter compiles SpEL); {@code paramIndex} is then
 * unused. A null key (a null argument or element, a {@code ParamFlowKey} or expression giving null,
 * or an expression that fails) is decided by {@code nullKey}; a call with no argument at
 * {@code paramIndex} is not limited.
 *
 * <p>Per-value state is kept for at most {@link #MAX_TRACKED_VALUES} values per rule, values idle
 * longest first out (second-chance eviction): an evicted value starts afresh when it comes back.
 *
 * @param resource the guarded resource
 * @param paramIndex which argument; negative counts from the end ({@code -1} is the last)
 * @param key an expression naming the key instead of {@code paramIndex}, or null
 * @param nullKey how a null key is decided
 * @param grade {@code QPS} or {@code THREADS}
 * @param count the limit per value
 * @param duration {@code QPS}: the span {@code count} applies to
 * @param burst {@code QPS} + {@code REJECT}: extra permits a value may use at once after idling
 * @param controlBehavior {@code REJECT} or {@code QUEUE}
 * @param maxQueueingTime {@code QUEUE}: the longest a call waits
 * @param exceptions values with a count of their own
 * @param clusterMode whether each key's count is shared by all instances (needs a cluster client)
 * @param shadow whether the rule only counts what it would refuse (see {@link Rule#shadow()})
 * @param name the rule's name, or null: its policy's name in HTTP's {@code RateLimit} headers, and
 *     what the endpoint and logs show (see {@link RuleNames} for what a name may hold). A name
 *     changes nothing the rule counts: a replacement that changes only the name keeps its state
 */
public record ParamFlowRule(
    String resource,
    int paramIndex,
    @Nullable String key,
    NullKey nullKey,
    FlowGrade grade,
    double count,
    Duration duration,
    int burst,
    ControlBehavior controlBehavior,
    Duration maxQueueingTime,
    List<ParamFlowItem> exceptions,
    boolean clusterMode,
    boolean shadow,
    @Nullable String name)
    implements ResourceRule {

  /** Values tracked per rule; beyond, the state of a value idle since the last sweep is dropped. */
  public static final int MAX_TRACKED_VALUES = 10_000;

  /** Replaces null components by their defaults, a blank name by none, and copies the list. */
  public ParamFlowRule {
    resource = resource == null ? "" : resource;
    key = key == null || key.isBlank() ? null : key.strip();
    nullKey = nullKey == null ? NullKey.SHARED : nullKey;
    grade = grade == null ? FlowGrade.QPS : grade;
    duration = duration == null ? Duration.ofSeconds(1) : duration;
    controlBehavior = controlBehavior == null ? ControlBehavior.REJECT : controlBehavior;
    maxQueueingTime = maxQueueingTime == null ? Duration.ZERO : maxQueueingTime;
    exceptions = exceptions == null ? List.of() : List.copyOf(exceptions);
    name = name == null || name.isBlank() ? null : name;
  }

  /**
   * A rule on argument {@code paramIndex}, null keys shared, local, not in shadow mode and without
   * a name: the other components.
   */
  public ParamFlowRule(String resource, int paramIndex, FlowGrade grade, double count, Duration duration, int burst,
      ControlBehavior controlBehavior, Duration maxQueueingTime, List<ParamFlowItem> exceptions) {
    this(resource, paramIndex, null, NullKey.SHARED, grade, count, duration, burst, controlBehavior, maxQueueingTime,
        exceptions, false, false, null);
  }

  @Override
  public ParamFlowRule withShadow(boolean shadow) {
    return shadow == this.shadow ? this : toBuilder().shadow(shadow).build();
  }

  /** Returns this rule with {@link #name()} set to {@code name} (null or blank for none), everything else equal. */
  public ParamFlowRule withName(@Nullable String name) {
    return Objects.equals(name, this.name) ? this : toBuilder().name(name).build();
  }

  /** Returns a builder holding this rule's values. */
  public Builder toBuilder() {
    Builder builder = new Builder(resource);
    builder.paramIndex = paramIndex;
    builder.key = key;
    builder.nullKey = nullKey;
    builder.grade = grade;
    builder.count = count;
    builder.duration = duration;
    builder.burst = burst;
    builder.controlBehavior = controlBehavior;
    builder.maxQueueingTime = maxQueueingTime;
    builder.exceptions = exceptions;
    builder.clusterMode = clusterMode;
    builder.shadow = shadow;
    builder.name = name;
    return builder;
  }

  /** Returns a builder for a rule on {@code resource}, argument 0, with defaults. */
  public static Builder builder(String resource) {
    return new Builder(resource);
  }

  /** Builds a {@link ParamFlowRule}. Not thread-safe. */
  public static final class Builder {
    private final String resource;
    private int paramIndex;
    private @Nullable String key;
    private NullKey nullKey = NullKey.SHARED;
    private FlowGrade grade = FlowGrade.QPS;
    private double count;
    private Duration duration = Duration.ofSeconds(1);
    private int burst;
    private ControlBehavior controlBehavior = ControlBehavior.REJECT;
    private Duration maxQueueingTime = Duration.ZERO;
    private List<ParamFlowItem> exceptions = List.of();
    private boolean clusterMode;
    private boolean shadow;
    private @Nullable String name;

    private Builder(String resource) {
      this.resource = Objects.requireNonNull(resource, "resource");
    }

    /** Sets the argument index; negative counts from the end. */
    public Builder paramIndex(int paramIndex) {
      this.paramIndex = paramIndex;
      return this;
    }

    /** Sets the key expression used instead of the argument index; null or blank for none. */
    public Builder key(@Nullable String key) {
      this.key = key;
      return this;
    }

    /** Sets how a null key is decided. */
    public Builder nullKey(NullKey nullKey) {
      this.nullKey = nullKey;
      return this;
    }

    /** Sets whether each key's count is shared by all instances. */
    public Builder clusterMode(boolean clusterMode) {
      this.clusterMode = clusterMode;
      return this;
    }

    /** Sets what is counted per value. */
    public Builder grade(FlowGrade grade) {
      this.grade = grade;
      return this;
    }

    /** Sets the limit per value. */
    public Builder count(double count) {
      this.count = count;
      return this;
    }

    /** Sets the span of the count. */
    public Builder duration(Duration duration) {
      this.duration = duration;
      return this;
    }

    /** Sets the extra permits after idling. */
    public Builder burst(int burst) {
      this.burst = burst;
      return this;
    }

    /** Sets reject or queue. */
    public Builder controlBehavior(ControlBehavior controlBehavior) {
      this.controlBehavior = controlBehavior;
      return this;
    }

    /** Sets the longest wait of a queued call. */
    public Builder maxQueueingTime(Duration maxQueueingTime) {
      this.maxQueueingTime = maxQueueingTime;
      return this;
    }

    /** Sets the values with a count of their own. */
    public Builder exceptions(List<ParamFlowItem> exceptions) {
      this.exceptions = exceptions;
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

    /** Returns the rule; it is not validated here. */
    public ParamFlowRule build() {
      return new ParamFlowRule(resource, paramIndex, key, nullKey, grade, count, duration, burst, controlBehavior,
          maxQueueingTime, exceptions, clusterMode, shadow, name);
    }
  }

  /** Returns {@link RuleKind#PARAM_FLOW}. */
  @Override
  public RuleKind kind() {
    return RuleKind.PARAM_FLOW;
  }
}
