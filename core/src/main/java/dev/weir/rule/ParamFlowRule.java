package dev.weir.rule;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

/**
 * A hot-parameter limit: a separate limit for each value of one argument of the call. For
 * {@code QPS}, each value has a token bucket of {@code count + burst} permits refilled at
 * {@code count} per {@code duration}; with {@code QUEUE} the value's calls are instead spaced
 * {@code duration / count} apart and wait up to {@code maxQueueingTime}. For {@code THREADS}, each
 * value may have {@code count} calls inside at once. A collection or array argument counts each
 * element; a null argument, or an index past the arguments, is not limited. An argument can choose
 * its own key by implementing {@code dev.weir.ParamFlowKey}.
 *
 * <p>Per-value state is kept for at most {@link #MAX_TRACKED_VALUES} values per rule, least
 * recently used first out: an evicted value starts afresh when it comes back.
 *
 * @param resource the guarded resource
 * @param paramIndex which argument; negative counts from the end ({@code -1} is the last)
 * @param grade {@code QPS} or {@code THREADS}
 * @param count the limit per value
 * @param duration {@code QPS}: the span {@code count} applies to
 * @param burst {@code QPS} + {@code REJECT}: extra permits a value may use at once after idling
 * @param controlBehavior {@code REJECT} or {@code QUEUE}
 * @param maxQueueingTime {@code QUEUE}: the longest a call waits
 * @param exceptions values with a count of their own
 * @param shadow whether the rule only counts what it would refuse (see {@link Rule#shadow()})
 */
public record ParamFlowRule(
    String resource,
    int paramIndex,
    FlowGrade grade,
    double count,
    Duration duration,
    int burst,
    ControlBehavior controlBehavior,
    Duration maxQueueingTime,
    List<ParamFlowItem> exceptions,
    boolean shadow)
    implements ResourceRule {

  /** Values tracked per rule; beyond, the least recently used value's state is dropped. */
  public static final int MAX_TRACKED_VALUES = 10_000;

  /** Replaces null components by their defaults and copies the list. */
  public ParamFlowRule {
    resource = resource == null ? "" : resource;
    grade = grade == null ? FlowGrade.QPS : grade;
    duration = duration == null ? Duration.ofSeconds(1) : duration;
    controlBehavior = controlBehavior == null ? ControlBehavior.REJECT : controlBehavior;
    maxQueueingTime = maxQueueingTime == null ? Duration.ZERO : maxQueueingTime;
    exceptions = exceptions == null ? List.of() : List.copyOf(exceptions);
  }

  /** A rule that is not in shadow mode: the components before {@code shadow}. */
  public ParamFlowRule(String resource, int paramIndex, FlowGrade grade, double count, Duration duration, int burst,
      ControlBehavior controlBehavior, Duration maxQueueingTime, List<ParamFlowItem> exceptions) {
    this(resource, paramIndex, grade, count, duration, burst, controlBehavior, maxQueueingTime, exceptions, false);
  }

  @Override
  public ParamFlowRule withShadow(boolean shadow) {
    return shadow == this.shadow ? this : new ParamFlowRule(resource, paramIndex, grade, count, duration, burst,
        controlBehavior, maxQueueingTime, exceptions, shadow);
  }

  /** Returns a builder for a rule on {@code resource}, argument 0, with defaults. */
  public static Builder builder(String resource) {
    return new Builder(resource);
  }

  /** Builds a {@link ParamFlowRule}. Not thread-safe. */
  public static final class Builder {
    private final String resource;
    private int paramIndex;
    private FlowGrade grade = FlowGrade.QPS;
    private double count;
    private Duration duration = Duration.ofSeconds(1);
    private int burst;
    private ControlBehavior controlBehavior = ControlBehavior.REJECT;
    private Duration maxQueueingTime = Duration.ZERO;
    private List<ParamFlowItem> exceptions = List.of();
    private boolean shadow;

    private Builder(String resource) {
      this.resource = Objects.requireNonNull(resource, "resource");
    }

    /** Sets the argument index; negative counts from the end. */
    public Builder paramIndex(int paramIndex) {
      this.paramIndex = paramIndex;
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

    /** Returns the rule; it is not validated here. */
    public ParamFlowRule build() {
      return new ParamFlowRule(resource, paramIndex, grade, count, duration, burst, controlBehavior, maxQueueingTime,
          exceptions, shadow);
    }
  }

  /** Returns {@link RuleKind#PARAM_FLOW}. */
  @Override
  public RuleKind kind() {
    return RuleKind.PARAM_FLOW;
  }
}
