package dev.weir;

import dev.weir.cluster.ClusterClient;
import dev.weir.cluster.ClusterOptions;
import dev.weir.internal.Engine;
import dev.weir.internal.EngineSettings;
import dev.weir.internal.call.Call;
import dev.weir.internal.call.CallStack;
import dev.weir.internal.call.NodeRegistry;
import dev.weir.internal.call.Quotas;
import dev.weir.internal.call.ResourceNode;
import dev.weir.rule.RuleSet;
import dev.weir.rule.SystemRule;
import dev.weir.spi.ProcessorSlot;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A flow-control engine: rules, statistics and the slot chain, with its own {@link Ticker}.
 * Engines share nothing: two of them in one JVM never see each other's resources, rules or
 * contexts. Thread-safe; build one with {@link #builder()} and keep it for the application's life.
 *
 * <p>Guard a call with {@link #entry(String)}; it either returns an {@link Entry} to close when
 * the call completes, or throws a {@link BlockException} naming the rule that refused it:
 * <pre>{@code
 * Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.qps("createOrder", 100))).build();
 * try (Entry entry = weir.entry("createOrder")) {
 *   // the call
 * } catch (BlockException blocked) {
 *   // refused; blocked.retryAfter() says when to try again
 * }
 * }</pre>
 *
 * <p>A call goes through the slots in order: node selection, statistics, authority, system,
 * param-flow, flow, degrade (see {@link dev.weir.spi.SlotOrder}), plus any slot registered through
 * {@link ServiceLoader} or {@link Builder#slot}. A refusal inside the chain is a return value; the
 * exception is thrown once, here.
 */
public final class Weir implements AutoCloseable {

  /** The name of the context of calls made outside any {@link ContextScope}. */
  public static final String DEFAULT_CONTEXT = Call.DEFAULT_CONTEXT;

  /** The default estimated heap the keys of one hot-parameter rule may hold: 4 MiB. */
  public static final long DEFAULT_MAX_KEY_BYTES_PER_RULE = 4L << 20;

  /** The engine's clock resolution on the builder's own ticker unless the builder sets one: 1 ms. */
  static final long DEFAULT_CLOCK_RESOLUTION_NANOS = 1_000_000;

  private final Engine engine;
  /** The engine's thread-local of call stacks and its nodes, held here too for the entry methods. */
  private final CallStack.PerThread stacks;
  private final NodeRegistry nodes;
  private final RuleRegistry rules;
  private final @Nullable ClusterStatus cluster;

  private Weir(EngineSettings settings) {
    this.engine = Engine.build(settings);
    this.stacks = engine.stacks;
    this.nodes = engine.nodes;
    this.rules = new RuleRegistry(engine.book, engine.cluster != null);
    this.cluster = engine.cluster == null ? null : new ClusterStatus(engine.cluster, settings.clusterOptions());
    if (!settings.rules().isEmpty()) {
      rules.load(settings.rules());
    }
    if (settings.systemRule().isActive()) {
      rules.replaceSystemRule(settings.systemRule());
    }
  }

  /** Returns a builder with the defaults: system ticker, 2 buckets per second, 6000 resources. */
  public static Builder builder() {
    return new Builder();
  }

  /*
   * The entry methods, here and CallStack.entry, are kept at most 35 bytes of bytecode each, on
   * purpose (MaxInlineSize): methods that small are inlined by the JIT into every caller (C1
   * always, C2 wherever the call is hot), whatever it compiled first; the work is in
   * CallStack.enter, which is compiled on its own. So the throw of a refusal lands in the caller's
   * compiled code, where a catch nearby is a jump rather than a runtime unwind, and the Entry handle
   * is allocated there too, where escape analysis removes it when the entry stays in the caller's
   * method (try-with-resources). Measured: with larger entry methods, the JIT compiled them on their
   * own first in some runs, and then a refusal cost twice as much and an admitted call allocated
   * its 48-byte handle.
   */

  /** Guards an outbound call of {@code resource} asking for one permit. */
  public Entry entry(String resource) {
    return stacks.current().entry(null, resource, EntryType.OUT, 1, null, nodes, Criticality.CRITICAL);
  }

  /** Guards a call of {@code resource} in direction {@code type}, asking for one permit. */
  public Entry entry(String resource, EntryType type) {
    return stacks.current().entry(null, resource, type, 1, null, nodes, Criticality.CRITICAL);
  }

  /**
   * Guards a call.
   *
   * <p>Exception-safe: a slot that throws (a user's {@code ParamFlowKey}, an argument's
   * {@code hashCode}, a custom slot) leaves nothing behind. The permits the call already took are
   * refunded, its probes handed back, and the exception reaches the caller.
   *
   * @param resource the resource name
   * @param type the direction; system rules apply to {@link EntryType#IN} only
   * @param acquireCount permits to take, at least 1
   * @param args the call's arguments, for hot-parameter rules; may be null
   * @return the entry to close when the call completes
   * @throws BlockException when a rule refuses the call
   */
  public Entry entry(String resource, EntryType type, int acquireCount, Object @Nullable ... args) {
    return stacks.current().entry(null, resource, type, acquireCount, args, nodes, Criticality.CRITICAL);
  }

  /**
   * Guards a call as {@link #entry(String, EntryType, int, Object...)} does, giving it
   * {@code criticality} unless the thread's context gave one ({@link #enterContext(String, String,
   * Criticality)}): a context's criticality wins. What {@code @RateLimited(criticality)} uses.
   *
   * @param resource the resource name
   * @param type the direction; system rules apply to {@link EntryType#IN} only
   * @param permits permits to take, at least 1
   * @param criticality the call's criticality when its context gives none
   * @param args the call's arguments, for hot-parameter rules; may be null
   * @return the entry to close when the call completes
   * @throws BlockException when a rule refuses the call
   */
  public Entry entry(String resource, EntryType type, int permits, Criticality criticality, Object @Nullable [] args) {
    return stacks.current().entry(null, resource, type, permits, args, nodes, Objects.requireNonNull(criticality));
  }

  /**
   * Guards a call as {@link #entry(String, EntryType, int, Object...)} does, with the same
   * decision, but answers a refusal with null instead of an exception: nothing is thrown and
   * nothing is allocated for it. For callers that answer a refusal themselves (filters, reactive
   * operators) and need neither the refusing rule nor a retry-after; use {@code entry} when you do.
   * A refusal is counted in the statistics as any other.
   *
   * @param resource the resource name
   * @param type the direction; system rules apply to {@link EntryType#IN} only
   * @param permits permits to take, at least 1
   * @param args the call's arguments, for hot-parameter rules; may be null
   * @return the entry to close when the call completes, or null when a rule refused the call
   */
  public @Nullable Entry tryEntry(String resource, EntryType type, int permits, Object @Nullable ... args) {
    return stacks.current().tryEntry(null, resource, type, permits, args, nodes, Criticality.CRITICAL);
  }

  /**
   * As {@link #tryEntry(String, EntryType, int, Object...)}, giving the call {@code criticality}
   * unless the thread's context gave one (see {@link #entry(String, EntryType, int, Criticality, Object[])}).
   */
  public @Nullable Entry tryEntry(String resource, EntryType type, int permits, Criticality criticality,
      Object @Nullable [] args) {
    return stacks.current().tryEntry(null, resource, type, permits, args, nodes, Objects.requireNonNull(criticality));
  }

  /**
   * As {@link #tryEntry(String, EntryType, int, Object...)} for a call without arguments; an
   * overload of its own so that the call allocates no empty argument array.
   */
  public @Nullable Entry tryEntry(String resource, EntryType type, int permits) {
    return stacks.current().tryEntry(null, resource, type, permits, null, nodes, Criticality.CRITICAL);
  }

  /**
   * Returns a handle on {@code resource}, resolved once: its entry methods make the same decisions
   * as this engine's for that name, without a lookup per call, and follow rule changes. Resolving
   * it makes the resource known, as its first call would (within {@link Builder#maxResources}).
   *
   * @param resource the resource name
   * @return a handle to keep and call from any thread
   */
  public Resource resource(String resource) {
    Objects.requireNonNull(resource, "resource");
    return new Resource(this, resource, stacks, nodes, nodes.forHandle(resource));
  }

  /**
   * Reads what the rate rules of {@code resource} have left for a call with {@code args} in the
   * current thread's context and origin, taking nothing: one {@link Quota} for each {@code qps} flow
   * rule that applies to the caller and each {@code qps} hot-parameter rule with a single key for
   * these arguments, whose limiter keeps a quota (sliding and exact windows, token buckets; not
   * queueing, warm-up, related or cluster rules). For answers such as HTTP's {@code RateLimit}
   * headers; empty for a resource without such rules.
   *
   * @param resource the resource
   * @param args the call's arguments, as given to {@link #entry(String, EntryType, int, Object...)}
   * @return the quotas, flow rules first, each kind in rule order
   */
  public List<Quota> quotas(String resource, Object @Nullable ... args) {
    ResourceNode node = nodes.existing(resource);
    if (node == null) {
      return List.of();
    }
    CallStack stack = stacks.current();
    String contextName = stack.contextName;
    String origin = stack.origin;
    stack.leaveIfIdle();
    return Quotas.read(node.rules, contextName, origin, args, engine.clock.read());
  }

  /**
   * Guards an asynchronous call: one whose work completes later, on whatever thread (a
   * {@code CompletableFuture}, a reactive subscription). It is checked and counted like
   * {@link #entry(String, EntryType, int, Object...)}, in the context of the calling thread, but
   * its entry does not nest with the entries of the calling thread: close it when the work
   * completes, from any thread and in any order with other entries (idempotent). A concurrency
   * limit counts it until then, and its response time runs until then.
   *
   * @param resource the resource name
   * @param type the direction; system rules apply to {@link EntryType#IN} only
   * @param acquireCount permits to take, at least 1
   * @param args the call's arguments, for hot-parameter rules; may be null
   * @return the entry to close when the work completes
   * @throws BlockException when a rule refuses the call
   */
  public Entry asyncEntry(String resource, EntryType type, int acquireCount, Object @Nullable ... args) {
    return stacks.current().asyncEntry(null, resource, type, acquireCount, args, nodes, Criticality.CRITICAL);
  }

  /**
   * As {@link #asyncEntry(String, EntryType, int, Object...)}, giving the call {@code criticality}
   * unless the thread's context gave one (see {@link #entry(String, EntryType, int, Criticality, Object[])}).
   */
  public Entry asyncEntry(String resource, EntryType type, int permits, Criticality criticality,
      Object @Nullable [] args) {
    return stacks.current().asyncEntry(null, resource, type, permits, args, nodes, Objects.requireNonNull(criticality));
  }

  /**
   * Enters a named context with a caller origin on this thread; close the scope to leave it. The
   * calls made inside keep the criticality of the enclosing context, {@link Criticality#CRITICAL}
   * outside any that gave one.
   *
   * @param name the context name ({@code chain} rules match it)
   * @param origin the caller's identity, or null/empty when unknown
   */
  public ContextScope enterContext(String name, @Nullable String origin) {
    Objects.requireNonNull(name, "name");
    return new ContextScope(stacks.current(), name, origin == null ? "" : origin, null);
  }

  /**
   * Enters a named context with a caller origin on this thread, whose calls have
   * {@code criticality}: when an {@code adaptive} limit binds, lower criticalities are shed first.
   * It wins over the criticality a call's caller passes ({@code @RateLimited(criticality)}). Close
   * the scope to leave it; the enclosing context's criticality is then in force again.
   *
   * @param name the context name ({@code chain} rules match it)
   * @param origin the caller's identity, or null/empty when unknown
   * @param criticality the criticality of the calls made inside
   */
  public ContextScope enterContext(String name, @Nullable String origin, Criticality criticality) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(criticality, "criticality");
    return new ContextScope(stacks.current(), name, origin == null ? "" : origin, criticality);
  }

  /** Runs {@code action} inside a named context with a caller origin. */
  public void runInContext(String name, @Nullable String origin, Runnable action) {
    try (ContextScope scope = enterContext(name, origin)) {
      action.run();
    }
  }

  /** Calls {@code action} inside a named context with a caller origin and returns its result. */
  public <T> T callInContext(String name, @Nullable String origin, Supplier<T> action) {
    try (ContextScope scope = enterContext(name, origin)) {
      return action.get();
    }
  }

  /**
   * Calls {@code action} inside a named context with a caller origin and a criticality (see
   * {@link #enterContext(String, String, Criticality)}) and returns its result.
   */
  public <T> T callInContext(String name, @Nullable String origin, Criticality criticality, Supplier<T> action) {
    try (ContextScope scope = enterContext(name, origin, criticality)) {
      return action.get();
    }
  }

  /**
   * The criticality the current thread's context gives its calls, or null when no entered context
   * gave one (then a call is {@link Criticality#CRITICAL} unless its caller passes another).
   */
  public @Nullable Criticality contextCriticality() {
    CallStack stack = stacks.current();
    Criticality given = stack.criticality;
    stack.leaveIfIdle();
    return given;
  }

  /** Returns the rules of this engine, to read or replace at runtime. */
  public RuleRegistry rules() {
    return rules;
  }

  /** Returns the live statistics of {@code resource}, or null when it has not been seen. */
  public @Nullable ResourceStatistics statistics(String resource) {
    return nodes.existing(resource);
  }

  /** Returns the names of the resources this engine has seen or has rules for. */
  public Set<String> resources() {
    return Set.copyOf(nodes.names());
  }

  /** Returns calls that passed unchecked because their resource was beyond {@code max-resources}. */
  public long uncheckedCalls() {
    return engine.overflow.uncheckedCalls.sum();
  }

  /**
   * Forgets every statistic and the state of every rule (window counts, queues, warm-up progress,
   * circuit states), keeping the rules in force: each resource starts afresh, as after
   * {@link Builder#build()}. Meant for tests that share one engine (a cached Spring context); call
   * it while no call is in flight (a call in flight completes normally, but its completion may be
   * missing from, or added to, the fresh counts). Resources stay known.
   */
  public void reset() {
    engine.book.reset();
  }

  /** Returns the engine's time source. */
  public Ticker ticker() {
    return engine.clock.ticker();
  }

  /**
   * Tells {@code listener} of every resource this engine tracks: at once of those known now, and of
   * each new one when it is first called or gets rules. Called on the thread that creates the
   * resource; keep it quick (meter registration is the intended use).
   */
  public void addResourceListener(java.util.function.Consumer<ResourceStatistics> listener) {
    engine.listeners.add(Objects.requireNonNull(listener, "listener"), nodes.all());
  }

  /** Adds a listener told of every circuit-breaker state change of this engine. */
  public void addCircuitBreakerListener(CircuitBreakerListener listener) {
    engine.listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /**
   * Returns the counters and breaker state of cluster mode, or null when the engine was built without
   * a {@link Builder#cluster cluster client}.
   */
  public @Nullable ClusterStatus cluster() {
    return cluster;
  }

  /**
   * Stops the engine's background work (system load sampling, a coarse clock's thread, the timer of
   * cluster leases, after giving back the permits its leases did not spend). Entries still open may
   * be closed afterwards.
   */
  @Override
  public void close() {
    engine.system.close();
    engine.clock.close();
    if (engine.cluster != null) {
      engine.cluster.close();
    }
  }

  /** The resolution of the engine's coarse time, 0 when every call reads the ticker; for tests. */
  long clockResolutionNanos() {
    return engine.clock.resolutionNanos();
  }

  /** This thread's stack of this engine; for tests. */
  CallStack currentStack() {
    return stacks.current();
  }

  /** Reads system load and CPU now rather than at the next once-a-second sample; for tests. */
  void sampleSystemNow() {
    engine.system.sampleNow();
  }

  /**
   * Configures a {@link Weir}. Not thread-safe.
   */
  public static final class Builder {
    private Ticker ticker = Ticker.system();
    private Sleeper sleeper = Sleeper.system();
    /** Whether {@link #ticker} was called: then the clock's default resolution is zero. */
    private boolean tickerGiven;
    /** The resolution set, or -1 for the default (1 ms on the builder's own ticker, else 0). */
    private long clockResolutionNanos = -1;
    private int sampleCount = 2;
    private int maxResources = 6000;
    private int maxOriginsPerResource = 1000;
    private long maxKeyBytesPerRule = DEFAULT_MAX_KEY_BYTES_PER_RULE;
    private boolean loadServiceSlots = true;
    private @Nullable ClassLoader classLoader = Weir.class.getClassLoader();
    private final List<ProcessorSlot> slots = new ArrayList<>();
    private RuleSet rules = RuleSet.empty();
    private SystemRule systemRule = SystemRule.NONE;
    private SystemStatus systemStatus = SystemStatus.jvm();
    private final List<CircuitBreakerListener> listeners = new ArrayList<>();
    private @Nullable ClusterClient clusterClient;
    private ClusterOptions clusterOptions = ClusterOptions.DEFAULTS;
    private KeyExpressions keyExpressions = KeyExpressions.NONE;

    private Builder() {
    }

    /** Sets the time source; tests pass one they drive. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      this.tickerGiven = true;
      return this;
    }

    /** Sets how queued calls wait; tests pass one that advances their ticker. */
    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
      return this;
    }

    /**
     * Sets how the engine reads its time source. With a resolution, a thread of the engine's own
     * ({@code weir-clock}) reads the ticker every {@code resolution} and calls read that reading
     * from a field: {@code System.nanoTime()} costs about 25 ns, the larger part of what guarding a
     * call would cost. Engine time then trails the ticker by up to the resolution (more while the
     * machine is too busy to run that thread on time: engine time stands still meanwhile, which
     * only makes limits admit less, and every 64th call of a thread reads the ticker itself so that
     * it cannot stand still for long while calls come). Every bound of every rule holds as before,
     * in engine time; a late call and a queue that waits still read the ticker.
     *
     * <p>Even with a resolution, a call of a resource whose rules need sub-millisecond time reads
     * the ticker once when it enters and once when it completes: a {@code queue} or
     * {@code warm-up-queue} flow or hot-parameter rule (its spacing), an {@code adaptive} flow rule
     * (its latency samples), a slow-call circuit breaker whose threshold is under 10 ms. The engine
     * decides that per resource when its rules change, not per call.
     *
     * <p>Not set, the resolution is 1 ms on the builder's own ticker ({@link Ticker#system()}) and
     * zero (the ticker is read on every call) when {@link #ticker} gave one, so that a test's driven
     * ticker drives every reading. Zero reads the ticker on every call whatever the ticker. Close the engine to end the thread
     * ({@link #close}); an engine dropped unclosed ends it at its next tick after it is collected.
     *
     * @param resolution zero, or from 10 µs to 10 ms
     */
    public Builder clockResolution(java.time.Duration resolution) {
      long nanos = resolution.toNanos();
      if (nanos != 0 && (nanos < 10_000 || nanos > 10_000_000)) {
        throw new IllegalArgumentException("clockResolution must be zero or from 10 µs to 10 ms, was " + resolution);
      }
      this.clockResolutionNanos = nanos;
      return this;
    }

    /** Sets the buckets of the one-second statistics window; must divide 1,000,000,000 (default 2). */
    public Builder sampleCount(int sampleCount) {
      if (sampleCount < 1 || sampleCount > 1000 || 1_000_000_000 % sampleCount != 0) {
        throw new IllegalArgumentException("sampleCount must be between 1 and 1000 and divide 1000000000, was "
            + sampleCount);
      }
      this.sampleCount = sampleCount;
      return this;
    }

    /** Sets how many resources without rules are tracked; further ones pass unchecked (default 6000). */
    public Builder maxResources(int maxResources) {
      this.maxResources = positive(maxResources, "maxResources");
      return this;
    }

    /**
     * Sets how many origins of each {@code limit-app: other} rule get a limiter of their own (default
     * 1000); further origins share one.
     */
    public Builder maxOriginsPerResource(int maxOrigins) {
      this.maxOriginsPerResource = positive(maxOrigins, "maxOriginsPerResource");
      return this;
    }

    /**
     * Sets the estimated heap, in bytes, that the keys of one hot-parameter rule may hold with their
     * limiters (default {@value #DEFAULT_MAX_KEY_BYTES_PER_RULE}, 4 MiB), besides the bound of
     * {@link dev.weir.rule.ParamFlowRule#MAX_TRACKED_VALUES} keys: idle keys
     * leave first. A string key longer than 128 characters is kept as its SHA-256 digest, so an
     * entry holds at most about 480 bytes; a key of another type is estimated at 64 bytes besides
     * the entry.
     */
    public Builder maxKeyBytesPerRule(long maxBytes) {
      if (maxBytes < 1) {
        throw new IllegalArgumentException("maxKeyBytesPerRule must be positive, was " + maxBytes);
      }
      this.maxKeyBytesPerRule = maxBytes;
      return this;
    }

    /** Adds a slot to the chain of this engine. */
    public Builder slot(ProcessorSlot slot) {
      slots.add(Objects.requireNonNull(slot, "slot"));
      return this;
    }

    /** Sets whether slots registered with {@link ServiceLoader} join the chain (default true). */
    public Builder loadServiceSlots(boolean load) {
      this.loadServiceSlots = load;
      return this;
    }

    /** Sets the class loader that service slots are loaded from. */
    public Builder classLoader(@Nullable ClassLoader classLoader) {
      this.classLoader = classLoader;
      return this;
    }

    /** Sets the rules of every kind in force when the engine starts; validated by {@link #build()}. */
    public Builder rules(RuleSet rules) {
      this.rules = Objects.requireNonNull(rules, "rules");
      return this;
    }

    /** Sets the system rule in force when the engine starts. */
    public Builder systemRule(SystemRule systemRule) {
      this.systemRule = Objects.requireNonNull(systemRule, "systemRule");
      return this;
    }

    /** Sets where system load and CPU usage are read (default: the JVM's operating-system bean). */
    public Builder systemStatus(SystemStatus systemStatus) {
      this.systemStatus = Objects.requireNonNull(systemStatus, "systemStatus");
      return this;
    }

    /** Adds a listener of circuit-breaker state changes. */
    public Builder circuitBreakerListener(CircuitBreakerListener listener) {
      listeners.add(Objects.requireNonNull(listener, "listener"));
      return this;
    }

    /**
     * Lets flow rules with {@code cluster-mode} count in the store behind {@code client}, under
     * {@code options}; without a client such rules are refused as invalid.
     */
    public Builder cluster(ClusterClient client, ClusterOptions options) {
      this.clusterClient = Objects.requireNonNull(client, "client");
      this.clusterOptions = Objects.requireNonNull(options, "options");
      return this;
    }

    /**
     * Sets what compiles the key expressions of hot-parameter rules ({@code key}); without it,
     * rules with a key expression are refused.
     */
    public Builder keyExpressions(KeyExpressions keyExpressions) {
      this.keyExpressions = Objects.requireNonNull(keyExpressions, "keyExpressions");
      return this;
    }

    /**
     * Builds the engine.
     *
     * @throws dev.weir.rule.InvalidRulesException when the rules are invalid
     */
    public Weir build() {
      long resolution = clockResolutionNanos >= 0 ? clockResolutionNanos
          : tickerGiven ? 0 : DEFAULT_CLOCK_RESOLUTION_NANOS;
      return new Weir(new EngineSettings(ticker, sleeper, resolution, sampleCount, maxResources, maxOriginsPerResource,
          maxKeyBytesPerRule, slots, loadServiceSlots, classLoader, rules, systemRule, systemStatus, listeners,
          clusterClient, clusterOptions, keyExpressions));
    }

    private static int positive(int value, String name) {
      if (value < 1) {
        throw new IllegalArgumentException(name + " must be at least 1, was " + value);
      }
      return value;
    }
  }
}
