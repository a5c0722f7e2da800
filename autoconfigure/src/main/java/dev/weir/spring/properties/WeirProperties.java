package dev.weir.spring.properties;

import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Configuration of Weir under the {@code weir} prefix: the engine's limits and the rules in force
 * when the application starts. Enum values bind case-insensitively, with or without dashes
 * ({@code warm-up}, {@code WARM_UP}). Every value is checked at startup: an invalid one stops the
 * start with the property's path, such as {@code weir.flow[0].count}, and what is allowed; so does
 * every key under {@code weir.} that is none of these properties, such as a misspelt
 * {@code weir.flow[0].intervall} (see {@link #isStrictKeys()}).
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
   * Whether a key under weir. that is no Weir property (a misspelt one, such as
   * weir.flow[0].intervall) stops the start, naming it and the nearest known key. When false, each
   * such key is logged as a warning instead: for an older Weir started with a newer configuration.
   */
  private boolean strictKeys = true;

  /**
   * Most resources without rules that the engine tracks; calls of further resource names pass
   * unchecked (warned about and counted).
   */
  private int maxResources = 6000;

  /**
   * How often a thread of the engine's own reads the clock for the calls to read, instead of each
   * call reading it: unset, 1ms (0 with a Ticker bean of your own, so that a driven ticker drives
   * every reading); 0 reads it on every call; from 10us to 10ms otherwise. Resources whose rules
   * need sub-millisecond time (queueing, adaptive, slow-call thresholds under 10ms) read it on every
   * call whatever this says. See docs/design/engine.md, "Time".
   */
  private @Nullable Duration clockResolution;

  private final Statistics statistics = new Statistics();

  /**
   * Whether every rule is in shadow mode unless it sets shadow itself: rules are evaluated with
   * their full state but refuse nothing, and what they would have refused is counted (meter
   * weir.blocks.shadow) and logged at most once a second per rule.
   */
  private boolean shadow;

  /** Flow rules: rate (qps) and concurrency (threads) limits. */
  private List<FlowRuleProperties> flow = new ArrayList<>();

  /** Circuit breakers: slow-call ratio, error ratio or error count over a statistics interval. */
  private List<DegradeRuleProperties> degrade = new ArrayList<>();

  /** Hot-parameter limits: a rate per value of one argument of the guarded method. */
  private List<ParamFlowRuleProperties> paramFlow = new ArrayList<>();

  /** Caller allow and deny lists, by origin. */
  private List<AuthorityRuleProperties> authority = new ArrayList<>();

  /** Limits of the application's whole inbound traffic. */
  @NestedConfigurationProperty
  private final SystemRuleProperties system = new SystemRuleProperties();

  private final Web web = new Web();

  private final Cluster cluster = new Cluster();

  private final Metrics metrics = new Metrics();

  private final Rules rules = new Rules();

  private final RulesStore rulesStore = new RulesStore();

  private final RetryBudget retryBudget = new RetryBudget();

  private final Grpc grpc = new Grpc();
  private final Client client = new Client();

  private final Ai ai = new Ai();

  private final CompatibilityVerifier compatibilityVerifier = new CompatibilityVerifier();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public boolean isStrictKeys() {
    return strictKeys;
  }

  public void setStrictKeys(boolean strictKeys) {
    this.strictKeys = strictKeys;
  }

  public @Nullable Duration getClockResolution() {
    return clockResolution;
  }

  public void setClockResolution(@Nullable Duration clockResolution) {
    this.clockResolution = clockResolution;
  }

  public int getMaxResources() {
    return maxResources;
  }

  public void setMaxResources(int maxResources) {
    this.maxResources = maxResources;
  }

  public boolean isShadow() {
    return shadow;
  }

  public void setShadow(boolean shadow) {
    this.shadow = shadow;
  }

  public Statistics getStatistics() {
    return statistics;
  }

  public List<FlowRuleProperties> getFlow() {
    return flow;
  }

  public void setFlow(List<FlowRuleProperties> flow) {
    this.flow = flow;
  }

  public List<DegradeRuleProperties> getDegrade() {
    return degrade;
  }

  public void setDegrade(List<DegradeRuleProperties> degrade) {
    this.degrade = degrade;
  }

  public List<ParamFlowRuleProperties> getParamFlow() {
    return paramFlow;
  }

  public void setParamFlow(List<ParamFlowRuleProperties> paramFlow) {
    this.paramFlow = paramFlow;
  }

  public List<AuthorityRuleProperties> getAuthority() {
    return authority;
  }

  public void setAuthority(List<AuthorityRuleProperties> authority) {
    this.authority = authority;
  }

  public SystemRuleProperties getSystem() {
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

  public Rules getRules() {
    return rules;
  }

  public RulesStore getRulesStore() {
    return rulesStore;
  }

  public RetryBudget getRetryBudget() {
    return retryBudget;
  }

  public Grpc getGrpc() {
    return grpc;
  }

  public Client getClient() {
    return client;
  }

  public Ai getAi() {
    return ai;
  }

  public CompatibilityVerifier getCompatibilityVerifier() {
    return compatibilityVerifier;
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

  /** Web settings ({@code weir.web}). */
  public static class Web {

    /**
     * Request header that carries the caller's origin, matched by limit-app; unset means requests
     * have no origin.
     */
    private @Nullable String originHeader;

    /**
     * Whether responses of route resources and 429 answers to flow and param-flow refusals carry
     * the RateLimit-Policy and RateLimit headers (IETF draft-ietf-httpapi-ratelimit-headers).
     */
    private boolean rateLimitHeaders = true;

    /**
     * Request header naming the criticality a request claims (critical_plus, critical,
     * sheddable_plus, sheddable); it can lower the criticality of the request's calls, never raise
     * it. A value that names none is ignored. Unset means the header is not read.
     */
    private @Nullable String criticalityHeader;

    /**
     * Requests guarded as resources without annotations, in order; the first route that matches a
     * request guards it.
     */
    private List<RouteProperties> routes = new ArrayList<>();

    public @Nullable String getOriginHeader() {
      return originHeader;
    }

    public void setOriginHeader(@Nullable String originHeader) {
      this.originHeader = originHeader;
    }

    public @Nullable String getCriticalityHeader() {
      return criticalityHeader;
    }

    public void setCriticalityHeader(@Nullable String criticalityHeader) {
      this.criticalityHeader = criticalityHeader;
    }

    public boolean isRateLimitHeaders() {
      return rateLimitHeaders;
    }

    public void setRateLimitHeaders(boolean rateLimitHeaders) {
      this.rateLimitHeaders = rateLimitHeaders;
    }

    public List<RouteProperties> getRoutes() {
      return routes;
    }

    public void setRoutes(List<RouteProperties> routes) {
      this.routes = routes;
    }
  }

  /**
   * Limits shared by every instance ({@code weir.cluster}): flow rules with {@code cluster-mode: true}
   * count in Redis, on the application's {@code spring.data.redis.*} connection (Lettuce).
   */
  public static class Cluster {

    /** Whether cluster-mode rules share their count through Redis. */
    private boolean enabled;

    /**
     * Whether instances lease blocks of permits from Redis and spend them locally, instead of asking
     * Redis once per call; a limit (or key) an instance asks fewer than 8 permits per lease validity
     * is still decided per call, which costs less than a lease of one permit (docs/cluster-leases.md).
     */
    private boolean lease;

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

    public boolean isLease() {
      return lease;
    }

    public void setLease(boolean lease) {
      this.lease = lease;
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

    /**
     * Returns the engine's options.
     *
     * @throws IllegalArgumentException when a value is out of range; {@link WeirPropertiesValidator}
     *     names such values by their property path
     */
    public ClusterOptions toOptions() {
      return new ClusterOptions(timeout, fallback, failureThreshold, openDuration, maxInFlight, lease);
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

  /**
   * Rule sources besides {@code application.yml} ({@code weir.rules}): a watched rule file, whether
   * endpoint writes are saved to it, and watched Sentinel rule files. Rule sources, in order, each
   * replace the rules of a resource and kind given before them: {@code application.yml}, the
   * Sentinel files, the rule file, endpoint writes.
   */
  public static class Rules {

    /** YAML (.yml, .yaml) or JSON (.json) file of rules, with the lists of weir.* (flow, degrade, param-flow, authority, system); watched. */
    private @Nullable Path file;

    /** Whether rules written through the weir endpoint are also saved to the rule file (weir.rules.file is then required). */
    private boolean writeBack;

    private final Sentinel sentinel = new Sentinel();

    public @Nullable Path getFile() {
      return file;
    }

    public void setFile(@Nullable Path file) {
      this.file = file;
    }

    public boolean isWriteBack() {
      return writeBack;
    }

    public void setWriteBack(boolean writeBack) {
      this.writeBack = writeBack;
    }

    public Sentinel getSentinel() {
      return sentinel;
    }
  }

  /**
   * The fleet's rules in one place ({@code weir.rules-store}): a versioned document in Redis, on
   * {@code weir.cluster}'s connection, that endpoint writes change for every instance; each instance
   * applies the store's current version, the last of the rule sources.
   */
  public static class RulesStore {

    /** Minimum of {@link #history}. */
    public static final int MIN_HISTORY = 1;

    /** Maximum of {@link #history}: a version is at most 1 MiB, so the store holds at most about 1 GiB. */
    public static final int MAX_HISTORY = 1000;

    /** Whether endpoint writes go to the store, a new version each, which every instance applies within 1 s (needs weir.cluster.enabled). */
    private boolean enabled;

    /** Versions kept in the store, for history and rollback; from 1 to 1000. */
    private int history = 50;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public int getHistory() {
      return history;
    }

    public void setHistory(int history) {
      this.history = history;
    }
  }

  /** Sentinel JSON rule files ({@code weir.rules.sentinel}), as Sentinel's file data source reads them; converted and watched. */
  public static class Sentinel {

    /** JSON array of Sentinel flow rules. */
    private @Nullable Path flowFile;

    /** JSON array of Sentinel degrade (circuit breaker) rules. */
    private @Nullable Path degradeFile;

    /** JSON array of Sentinel hot-parameter rules. */
    private @Nullable Path paramFlowFile;

    /** JSON array of Sentinel authority rules. */
    private @Nullable Path authorityFile;

    /** JSON array of Sentinel system rules. */
    private @Nullable Path systemFile;

    public @Nullable Path getFlowFile() {
      return flowFile;
    }

    public void setFlowFile(@Nullable Path flowFile) {
      this.flowFile = flowFile;
    }

    public @Nullable Path getDegradeFile() {
      return degradeFile;
    }

    public void setDegradeFile(@Nullable Path degradeFile) {
      this.degradeFile = degradeFile;
    }

    public @Nullable Path getParamFlowFile() {
      return paramFlowFile;
    }

    public void setParamFlowFile(@Nullable Path paramFlowFile) {
      this.paramFlowFile = paramFlowFile;
    }

    public @Nullable Path getAuthorityFile() {
      return authorityFile;
    }

    public void setAuthorityFile(@Nullable Path authorityFile) {
      this.authorityFile = authorityFile;
    }

    public @Nullable Path getSystemFile() {
      return systemFile;
    }

    public void setSystemFile(@Nullable Path systemFile) {
      this.systemFile = systemFile;
    }
  }

  /**
   * Retry budgets of Spring Framework's {@code @Retryable} methods and {@code RetryTemplate} beans
   * ({@code weir.retry-budget}): per resource, a retry is made only while the retries of the window,
   * this one included, are at most ratio x first attempts + min-per-second x window seconds. A retry
   * over budget is not made (the last exception reaches the caller). A Weir refusal is never retried,
   * with or without budgets.
   */
  public static class RetryBudget {

    /** Whether retries are budgeted; when false, only Weir refusals are kept from being retried. */
    private boolean enabled = true;

    /** Retries allowed per first attempt over the window. */
    private double ratio = 0.1;

    /** The sliding window first attempts and retries are counted over, from 10ms to 1d. */
    private Duration window = Duration.ofSeconds(10);

    /** Retries allowed per second of the window besides the ratio, so that a resource with little traffic may retry. */
    private double minPerSecond = 1;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public double getRatio() {
      return ratio;
    }

    public void setRatio(double ratio) {
      this.ratio = ratio;
    }

    public Duration getWindow() {
      return window;
    }

    public void setWindow(Duration window) {
      this.window = window;
    }

    public double getMinPerSecond() {
      return minPerSecond;
    }

    public void setMinPerSecond(double minPerSecond) {
      this.minPerSecond = minPerSecond;
    }
  }

  /**
   * gRPC (grpc-java) settings ({@code weir.grpc}): with grpc-java present, a server interceptor guards
   * each method as the IN resource {@code grpc:<service>/<method>} and a client interceptor each called method
   * as the OUT resource {@code grpc-client:<service>/<method>}.
   */
  /** Spring AI: each ChatClient call is a call of one resource whose rules count tokens. */
  public static class Ai {

    /** The resource of ChatClient calls (a ChatClientCustomizer adds Weir's advisor); its flow and param-flow rules count tokens. */
    private String resource = "ai:chat";

    /** Tokens a call takes before it runs when its request sets no max tokens; settled to the answer's total tokens after it. */
    private long estimateTokens = 1000;

    public String getResource() {
      return resource;
    }

    public void setResource(String resource) {
      this.resource = resource;
    }

    public long getEstimateTokens() {
      return estimateTokens;
    }

    public void setEstimateTokens(long estimateTokens) {
      this.estimateTokens = estimateTokens;
    }
  }

  public static class Grpc {

    /** Whether the gRPC interceptor beans are made (Spring gRPC applies them to every service and channel). */
    private boolean enabled = true;

    /**
     * Request metadata key (ASCII, such as x-caller) whose value is the caller's origin of a server
     * call, matched by limit-app and authority rules; unset means gRPC calls have no origin.
     */
    private @Nullable String originMetadata;

    /**
     * Request metadata key (ASCII) naming the criticality a server call claims, read as
     * weir.web.criticality-header is; unset means gRPC calls claim none.
     */
    private @Nullable String criticalityMetadata;

    public @Nullable String getCriticalityMetadata() {
      return criticalityMetadata;
    }

    public void setCriticalityMetadata(@Nullable String criticalityMetadata) {
      this.criticalityMetadata = criticalityMetadata;
    }

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public @Nullable String getOriginMetadata() {
      return originMetadata;
    }

    public void setOriginMetadata(@Nullable String originMetadata) {
      this.originMetadata = originMetadata;
    }
  }

  /**
   * Outgoing HTTP calls ({@code weir.client}): requests of the {@code RestClient}, {@code RestTemplate}
   * and {@code WebClient} built from Spring Boot's auto-configured builders that a route matches are
   * guarded as the route's resource ({@code OUT} calls), and, with {@code honour-upstream}, paused
   * when the other side asks for it.
   */
  public static class Client {

    /** Outgoing requests guarded as resources, in order; the first route that matches a request guards it. */
    private List<ClientRouteProperties> routes = new ArrayList<>();

    /**
     * Whether a 429 or 503 answer with Retry-After, or any answer with a RateLimit header whose
     * policy has r=0 and t=N, refuses the route's resource locally for that long (at most 1 hour),
     * before any request is sent.
     */
    private boolean honourUpstream = true;

    public List<ClientRouteProperties> getRoutes() {
      return routes;
    }

    public void setRoutes(List<ClientRouteProperties> routes) {
      this.routes = routes;
    }

    public boolean isHonourUpstream() {
      return honourUpstream;
    }

    public void setHonourUpstream(boolean honourUpstream) {
      this.honourUpstream = honourUpstream;
    }
  }

  /**
   * The check at start that the application runs on a Spring Boot version this Weir supports
   * ({@code weir.compatibility-verifier}; docs/compatibility.md).
   */
  public static class CompatibilityVerifier {

    /**
     * Whether an application on a Spring Boot version outside the supported range fails at start
     * with a message naming the version found and the range supported.
     */
    private boolean enabled = true;

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }
  }
}
