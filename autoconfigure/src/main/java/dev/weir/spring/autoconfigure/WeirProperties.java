package dev.weir.spring.autoconfigure;

import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterOptions;
import dev.weir.rule.AuthorityRule;
import dev.weir.rule.AuthorityStrategy;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.FlowStrategy;
import dev.weir.rule.ParamFlowItem;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.SystemRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration of Weir under the {@code weir} prefix: the engine's limits and the rules in force
 * when the application starts. Enum values bind case-insensitively, with or without dashes
 * ({@code warm-up}, {@code WARM_UP}). Every value is checked at startup: an invalid one stops the
 * start with the property's path, such as {@code weir.flow[0].count}, and what is allowed.
 *
 * <p>Flow rules with {@code cluster-mode: true} need {@code weir.cluster.enabled: true} and
 * {@code spring-boot-starter-data-redis}; without them the start stops rather than counting such a
 * rule on one instance only.
 */
@ConfigurationProperties("weir")
public class WeirProperties {

  /**
   * Whether Weir is enabled. When false, no engine is created, @RateLimited methods run unguarded
   * and no HTTP mapping is installed.
   */
  private boolean enabled = true;

  /**
   * Most resources without rules that the engine tracks; calls of further resource names pass
   * unchecked (warned about and counted).
   */
  private int maxResources = 6000;

  private final Statistics statistics = new Statistics();

  /** Flow rules: rate (qps) and concurrency (threads) limits. */
  private List<Flow> flow = new ArrayList<>();

  /** Circuit breakers: slow-call ratio, error ratio or error count over a statistics interval. */
  private List<Degrade> degrade = new ArrayList<>();

  /** Hot-parameter limits: a rate per value of one argument of the guarded method. */
  private List<ParamFlow> paramFlow = new ArrayList<>();

  /** Caller allow and deny lists, by origin. */
  private List<Authority> authority = new ArrayList<>();

  private final SystemLimits system = new SystemLimits();

  private final Web web = new Web();

  private final Cluster cluster = new Cluster();

  private final Metrics metrics = new Metrics();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public int getMaxResources() {
    return maxResources;
  }

  public void setMaxResources(int maxResources) {
    this.maxResources = maxResources;
  }

  public Statistics getStatistics() {
    return statistics;
  }

  public List<Flow> getFlow() {
    return flow;
  }

  public void setFlow(List<Flow> flow) {
    this.flow = flow;
  }

  public List<Degrade> getDegrade() {
    return degrade;
  }

  public void setDegrade(List<Degrade> degrade) {
    this.degrade = degrade;
  }

  public List<ParamFlow> getParamFlow() {
    return paramFlow;
  }

  public void setParamFlow(List<ParamFlow> paramFlow) {
    this.paramFlow = paramFlow;
  }

  public List<Authority> getAuthority() {
    return authority;
  }

  public void setAuthority(List<Authority> authority) {
    this.authority = authority;
  }

  public SystemLimits getSystem() {
    return system;
  }

  public Web getWeb() {
    return web;
  }

  public Cluster getCluster() {
    return cluster;
  }

  public Metrics getMetrics() {
    return metrics;
  }

  /** Live statistics settings ({@code weir.statistics}). */
  public static class Statistics {

    /**
     * Buckets in the one-second window of live statistics; must divide 1000000000 (1, 2, 4, 5,
     * 10, ...). More buckets slide more smoothly and cost more memory.
     */
    private int sampleCount = 2;

    public int getSampleCount() {
      return sampleCount;
    }

    public void setSampleCount(int sampleCount) {
      this.sampleCount = sampleCount;
    }
  }

  /** One flow rule ({@code weir.flow[*]}). */
  public static class Flow {

    /** The guarded resource (required). */
    private @Nullable String resource;

    /** The limit (required), at least 0; 0 refuses every call. */
    private @Nullable Double count;

    /** What is counted: qps (admissions per interval) or threads (calls inside at once). */
    private FlowGrade grade = FlowGrade.QPS;

    /** Grade qps only: the span that count applies to (1s, 1m, 1h, ...). */
    private Duration interval = Duration.ofSeconds(1);

    /** Grade qps with control-behavior reject only: never more than count in any interval-long span. */
    private boolean exact;

    /** What happens to calls above the rate: reject, warm-up, queue or warm-up-queue. */
    private ControlBehavior controlBehavior = ControlBehavior.REJECT;

    /** Warm-up behaviors: how long the rate takes to rise from count / cold-factor to count; 1ms to 1d. */
    private Duration warmUpPeriod = Duration.ofSeconds(10);

    /** Warm-up behaviors: the rate after an idle period is count / cold-factor; at least 2. */
    private int coldFactor = 3;

    /** Queue behaviors: the longest a call waits for its turn before it is refused; 0 to 1h. */
    private Duration maxQueueingTime = Duration.ofMillis(500);

    /** Which traffic the rule looks at: direct, related (another resource) or chain (one context). */
    private FlowStrategy strategy = FlowStrategy.DIRECT;

    /** Required for strategy related (the other resource) and chain (the context name). */
    private @Nullable String refResource;

    /** Which callers: default (all together), other (each origin no other rule names) or an origin. */
    private String limitApp = FlowRule.LIMIT_APP_DEFAULT;

    /** Whether count is shared by every instance of the application (needs weir.cluster). */
    private boolean clusterMode;

    public @Nullable String getResource() {
      return resource;
    }

    public void setResource(@Nullable String resource) {
      this.resource = resource;
    }

    public @Nullable Double getCount() {
      return count;
    }

    public void setCount(@Nullable Double count) {
      this.count = count;
    }

    public FlowGrade getGrade() {
      return grade;
    }

    public void setGrade(FlowGrade grade) {
      this.grade = grade;
    }

    public Duration getInterval() {
      return interval;
    }

    public void setInterval(Duration interval) {
      this.interval = interval;
    }

    public boolean isExact() {
      return exact;
    }

    public void setExact(boolean exact) {
      this.exact = exact;
    }

    public ControlBehavior getControlBehavior() {
      return controlBehavior;
    }

    public void setControlBehavior(ControlBehavior controlBehavior) {
      this.controlBehavior = controlBehavior;
    }

    public Duration getWarmUpPeriod() {
      return warmUpPeriod;
    }

    public void setWarmUpPeriod(Duration warmUpPeriod) {
      this.warmUpPeriod = warmUpPeriod;
    }

    public int getColdFactor() {
      return coldFactor;
    }

    public void setColdFactor(int coldFactor) {
      this.coldFactor = coldFactor;
    }

    public Duration getMaxQueueingTime() {
      return maxQueueingTime;
    }

    public void setMaxQueueingTime(Duration maxQueueingTime) {
      this.maxQueueingTime = maxQueueingTime;
    }

    public FlowStrategy getStrategy() {
      return strategy;
    }

    public void setStrategy(FlowStrategy strategy) {
      this.strategy = strategy;
    }

    public @Nullable String getRefResource() {
      return refResource;
    }

    public void setRefResource(@Nullable String refResource) {
      this.refResource = refResource;
    }

    public String getLimitApp() {
      return limitApp;
    }

    public void setLimitApp(String limitApp) {
      this.limitApp = limitApp;
    }

    public boolean isClusterMode() {
      return clusterMode;
    }

    public void setClusterMode(boolean clusterMode) {
      this.clusterMode = clusterMode;
    }

    /** Returns the rule; a missing count reads as 0, and is reported by the caller. */
    FlowRule toRule() {
      return FlowRule.builder(resource == null ? "" : resource)
          .count(count == null ? 0 : count)
          .grade(grade)
          .interval(interval)
          .exact(exact)
          .controlBehavior(controlBehavior)
          .warmUpPeriod(warmUpPeriod)
          .coldFactor(coldFactor)
          .maxQueueingTime(maxQueueingTime)
          .strategy(strategy)
          .refResource(refResource)
          .limitApp(limitApp)
          .clusterMode(clusterMode)
          .build();
    }
  }

  /** One circuit breaker ({@code weir.degrade[*]}). */
  public static class Degrade {

    /** The guarded resource. */
    private @Nullable String resource;

    /** What opens the circuit: slow-ratio, error-ratio or error-count. */
    private @Nullable DegradeStrategy strategy;

    /** A ratio in [0, 1] for the ratio strategies, or a count for error-count. */
    private @Nullable Double threshold;

    /** Strategy slow-ratio: calls slower than this are slow. */
    private @Nullable Duration slowCallThreshold;

    /** Calls needed in a stat-interval before the circuit may open. */
    private int minRequestAmount = 5;

    /** The window the threshold is measured over. */
    private Duration statInterval = Duration.ofSeconds(1);

    /** How long the circuit stays open before one probe call decides. */
    private Duration openDuration = Duration.ofSeconds(10);

    public @Nullable String getResource() {
      return resource;
    }

    public void setResource(@Nullable String resource) {
      this.resource = resource;
    }

    public @Nullable DegradeStrategy getStrategy() {
      return strategy;
    }

    public void setStrategy(@Nullable DegradeStrategy strategy) {
      this.strategy = strategy;
    }

    public @Nullable Double getThreshold() {
      return threshold;
    }

    public void setThreshold(@Nullable Double threshold) {
      this.threshold = threshold;
    }

    public @Nullable Duration getSlowCallThreshold() {
      return slowCallThreshold;
    }

    public void setSlowCallThreshold(@Nullable Duration slowCallThreshold) {
      this.slowCallThreshold = slowCallThreshold;
    }

    public int getMinRequestAmount() {
      return minRequestAmount;
    }

    public void setMinRequestAmount(int minRequestAmount) {
      this.minRequestAmount = minRequestAmount;
    }

    public Duration getStatInterval() {
      return statInterval;
    }

    public void setStatInterval(Duration statInterval) {
      this.statInterval = statInterval;
    }

    public Duration getOpenDuration() {
      return openDuration;
    }

    public void setOpenDuration(Duration openDuration) {
      this.openDuration = openDuration;
    }

    /** Returns the rule; missing required values are reported by {@link RuleProperties#required}. */
    DegradeRule toRule() {
      return new DegradeRule(resource == null ? "" : resource, strategy, threshold == null ? Double.NaN : threshold,
          slowCallThreshold, minRequestAmount, statInterval, openDuration);
    }
  }

  /** One hot-parameter limit ({@code weir.param-flow[*]}). */
  public static class ParamFlow {

    /** The guarded resource. */
    private @Nullable String resource;

    /** Which argument is limited per value; negative counts from the end. */
    private int paramIndex;

    /** qps: calls per duration for each value; threads: calls inside at once for each value. */
    private FlowGrade grade = FlowGrade.QPS;

    /** Calls per duration allowed for each value of the argument. */
    private @Nullable Double count;

    /** The span that count applies to; whole milliseconds from 1ms to 1d. */
    private Duration duration = Duration.ofSeconds(1);

    /** Extra calls allowed in a burst. */
    private int burst;

    /** What happens above the rate: reject or queue. */
    private ControlBehavior controlBehavior = ControlBehavior.REJECT;

    /** Queue behavior: the longest a call waits for its turn; 0 to 1h. */
    private Duration maxQueueingTime = Duration.ZERO;

    /** Values with a count of their own. */
    private List<ParamFlowException> exceptions = new ArrayList<>();

    public @Nullable String getResource() {
      return resource;
    }

    public void setResource(@Nullable String resource) {
      this.resource = resource;
    }

    public int getParamIndex() {
      return paramIndex;
    }

    public void setParamIndex(int paramIndex) {
      this.paramIndex = paramIndex;
    }

    public FlowGrade getGrade() {
      return grade;
    }

    public void setGrade(FlowGrade grade) {
      this.grade = grade;
    }

    public @Nullable Double getCount() {
      return count;
    }

    public void setCount(@Nullable Double count) {
      this.count = count;
    }

    public Duration getDuration() {
      return duration;
    }

    public void setDuration(Duration duration) {
      this.duration = duration;
    }

    public int getBurst() {
      return burst;
    }

    public void setBurst(int burst) {
      this.burst = burst;
    }

    public ControlBehavior getControlBehavior() {
      return controlBehavior;
    }

    public void setControlBehavior(ControlBehavior controlBehavior) {
      this.controlBehavior = controlBehavior;
    }

    public Duration getMaxQueueingTime() {
      return maxQueueingTime;
    }

    public void setMaxQueueingTime(Duration maxQueueingTime) {
      this.maxQueueingTime = maxQueueingTime;
    }

    public List<ParamFlowException> getExceptions() {
      return exceptions;
    }

    public void setExceptions(List<ParamFlowException> exceptions) {
      this.exceptions = exceptions;
    }

    /** Returns the rule; missing required values are reported by {@link RuleProperties#required}. */
    ParamFlowRule toRule() {
      List<ParamFlowItem> items = new ArrayList<>();
      for (ParamFlowException exception : exceptions) {
        items.add(new ParamFlowItem(exception.getValue() == null ? "" : exception.getValue(),
            exception.getCount() == null ? 0 : exception.getCount()));
      }
      return new ParamFlowRule(resource == null ? "" : resource, paramIndex, grade, count == null ? 0 : count,
          duration, burst, controlBehavior, maxQueueingTime, items);
    }
  }

  /** An argument value with a count of its own ({@code weir.param-flow[*].exceptions[*]}). */
  public static class ParamFlowException {

    /** The argument value, as text. */
    private @Nullable String value;

    /** Its count. */
    private @Nullable Double count;

    public @Nullable String getValue() {
      return value;
    }

    public void setValue(@Nullable String value) {
      this.value = value;
    }

    public @Nullable Double getCount() {
      return count;
    }

    public void setCount(@Nullable Double count) {
      this.count = count;
    }
  }

  /** One allow or deny list of callers ({@code weir.authority[*]}). */
  public static class Authority {

    /** The guarded resource. */
    private @Nullable String resource;

    /** white: only the listed origins may call; black: the listed origins may not. */
    private @Nullable AuthorityStrategy strategy;

    /** The origins listed. */
    private List<String> limitApp = new ArrayList<>();

    public @Nullable String getResource() {
      return resource;
    }

    public void setResource(@Nullable String resource) {
      this.resource = resource;
    }

    public @Nullable AuthorityStrategy getStrategy() {
      return strategy;
    }

    public void setStrategy(@Nullable AuthorityStrategy strategy) {
      this.strategy = strategy;
    }

    public List<String> getLimitApp() {
      return limitApp;
    }

    public void setLimitApp(List<String> limitApp) {
      this.limitApp = limitApp;
    }

    /** Returns the rule; a missing strategy reads as white. */
    AuthorityRule toRule() {
      return new AuthorityRule(resource == null ? "" : resource, strategy, limitApp);
    }
  }

  /**
   * Limits of the application's whole inbound traffic ({@code weir.system}), applied to
   * {@code entry-type: IN} calls only; unset means off.
   */
  public static class SystemLimits {

    /** Most inbound calls per second. */
    private @Nullable Double maxQps;

    /** Most inbound calls inside at once. */
    private @Nullable Integer maxThreads;

    /** Highest mean response time of inbound calls; up to 1h. */
    private @Nullable Duration maxAvgRt;

    /** Highest system load average. */
    private @Nullable Double maxLoad;

    /** Highest CPU usage, in (0, 1]. */
    private @Nullable Double maxCpuUsage;

    public @Nullable Double getMaxQps() {
      return maxQps;
    }

    public void setMaxQps(@Nullable Double maxQps) {
      this.maxQps = maxQps;
    }

    public @Nullable Integer getMaxThreads() {
      return maxThreads;
    }

    public void setMaxThreads(@Nullable Integer maxThreads) {
      this.maxThreads = maxThreads;
    }

    public @Nullable Duration getMaxAvgRt() {
      return maxAvgRt;
    }

    public void setMaxAvgRt(@Nullable Duration maxAvgRt) {
      this.maxAvgRt = maxAvgRt;
    }

    public @Nullable Double getMaxLoad() {
      return maxLoad;
    }

    public void setMaxLoad(@Nullable Double maxLoad) {
      this.maxLoad = maxLoad;
    }

    public @Nullable Double getMaxCpuUsage() {
      return maxCpuUsage;
    }

    public void setMaxCpuUsage(@Nullable Double maxCpuUsage) {
      this.maxCpuUsage = maxCpuUsage;
    }

    /** Returns the rule; {@link SystemRule#isActive()} is false when nothing is set. */
    SystemRule toRule() {
      return new SystemRule(maxQps, maxThreads, maxAvgRt, maxLoad, maxCpuUsage);
    }
  }

  /** Web settings ({@code weir.web}). */
  public static class Web {

    /**
     * Request header that carries the caller's origin, matched by limit-app; unset means requests
     * have no origin.
     */
    private @Nullable String originHeader;

    public @Nullable String getOriginHeader() {
      return originHeader;
    }

    public void setOriginHeader(@Nullable String originHeader) {
      this.originHeader = originHeader;
    }
  }

  /**
   * Limits shared by every instance ({@code weir.cluster}): flow rules with {@code cluster-mode: true}
   * count in Redis, on the application's {@code spring.data.redis.*} connection (Lettuce).
   */
  public static class Cluster {

    /** Whether cluster-mode rules share their count through Redis. */
    private boolean enabled;

    /** Consecutive Redis failures (errors or missed deadlines) that stop asking Redis for open-duration. */
    private int failureThreshold = 5;

    /** How long Redis is left alone after failure-threshold failures, up to 1d; then one call probes it. */
    private Duration openDuration = Duration.ofSeconds(1);

    /** Decisions that may wait for Redis at once; further calls use the fallback at once. */
    private int maxInFlight = 256;

    /** Prefix of the Redis keys. */
    private String keyPrefix = "weir";

    /** Deadline of one Redis decision; up to 1m. */
    private Duration timeout = Duration.ofMillis(20);

    /** What a cluster-mode rule does when Redis fails or is too slow. */
    private ClusterFallback fallback = ClusterFallback.LOCAL;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }

    public Duration getTimeout() {
      return timeout;
    }

    public void setTimeout(Duration timeout) {
      this.timeout = timeout;
    }

    public ClusterFallback getFallback() {
      return fallback;
    }

    public void setFallback(ClusterFallback fallback) {
      this.fallback = fallback;
    }

    public int getFailureThreshold() {
      return failureThreshold;
    }

    public void setFailureThreshold(int failureThreshold) {
      this.failureThreshold = failureThreshold;
    }

    public Duration getOpenDuration() {
      return openDuration;
    }

    public void setOpenDuration(Duration openDuration) {
      this.openDuration = openDuration;
    }

    public int getMaxInFlight() {
      return maxInFlight;
    }

    public void setMaxInFlight(int maxInFlight) {
      this.maxInFlight = maxInFlight;
    }

    /** Returns the engine's options; call after {@code PropertiesCheck} found them valid. */
    ClusterOptions toOptions() {
      return new ClusterOptions(timeout, fallback, failureThreshold, openDuration, maxInFlight);
    }
  }

  /** Meter settings ({@code weir.metrics}). */
  public static class Metrics {

    /** Extra tags on every Weir meter. */
    private Map<String, String> tags = new LinkedHashMap<>();

    public Map<String, String> getTags() {
      return tags;
    }

    public void setTags(Map<String, String> tags) {
      this.tags = tags;
    }
  }
}
