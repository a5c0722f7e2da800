package dev.weir.internal.call;

import dev.weir.KeyExpressions;
import dev.weir.ParamFlowKey;
import dev.weir.internal.cluster.LeasedFlowLimiter;
import dev.weir.internal.limit.KeyTable;
import dev.weir.internal.limit.FlowLimiter;
import dev.weir.internal.limit.ShadowRefusals;
import dev.weir.internal.limit.TrackedKeys;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.ParamFlowItem;
import dev.weir.rule.ParamFlowRule;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One hot-parameter rule with a limiter per key, in a {@link KeyTable} (CLOCK) of
 * {@link ParamFlowRule#MAX_TRACKED_VALUES} keys: memory stays bounded whatever the number of
 * distinct keys. An evicted key starts afresh; for {@code threads} a call still inside when its key
 * is evicted releases the old limiter, so nothing leaks, but the new one starts at zero. The key of
 * a call is an argument ({@code param-index}) or what the rule's compiled key expression makes of
 * the arguments; all null keys of a rule with {@code null-key: shared} count under
 * {@link #NULL_KEY}.
 */
final class ParamFlowRuleState {

  /** What {@link #argument} answers for a call without the rule's argument: the rule does not apply. */
  static final Object ABSENT = new Object();
  /** The one key all null keys of a {@code null-key: shared} rule count under; matches no exception value. */
  static final Object NULL_KEY = TrackedKeys.NULL_KEY;
  /** What {@link #counted} answers for a null key of a {@code null-key: deny} rule: refused. */
  static final Object DENIED = new Object();
  private static final Object[] NO_ARGS = new Object[0];

  final ParamFlowRule rule;
  /** Non-null when the rule is in shadow mode: then it counts what it would refuse, and never waits. */
  final @Nullable ShadowRefusals shadow;
  /**
   * The rule's name in the cluster store, which its keys' limiters count under; null for a local
   * rule. A state is handed on to a rule only while the name stays the same ({@link ResourceRules#next}).
   */
  final @Nullable String clusterName;
  /** The compiled key expression; null for a rule keyed by argument index. */
  private final KeyExpressions.@Nullable ParamKey key;
  private final Limiters limiters;
  /** The exceptions' counts by value, as {@link TrackedKeys#compact} keeps it: a string, or the digest of a long one. */
  private final Map<Object, Double> exceptionCounts;
  private final KeyTable<Object, FlowLimiter> byValue;
  /** Made once, so that finding a key's limiter allocates nothing. */
  private final Function<Object, FlowLimiter> newLimiter = this::newLimiter;

  /**
   * The state of {@code rule}, new, its keys named {@code clusterName} in the cluster store
   * ({@link dev.weir.internal.cluster.ClusterKeys#ruleNames}; null for a local rule).
   */
  ParamFlowRuleState(ParamFlowRule rule, @Nullable String clusterName, Limiters limiters, KeyExpressions keys) {
    this.rule = rule;
    this.clusterName = clusterName;
    this.shadow = ShadowRefusals.of(rule);
    String expression = rule.key();
    this.key = expression == null ? null : keys.compile(rule.resource(), expression);
    this.limiters = limiters;
    this.exceptionCounts = new HashMap<>();
    for (ParamFlowItem item : rule.exceptions()) {
      exceptionCounts.put(TrackedKeys.compact(item.value()), item.count());
    }
    this.byValue = limiters.leasesKeys(rule)
        ? new KeyTable<>(ParamFlowRule.MAX_TRACKED_VALUES, limiters.maxKeyBytes,
            value -> TrackedKeys.bytes(value) + LeasedFlowLimiter.KEY_BYTES)
        : new KeyTable<>(ParamFlowRule.MAX_TRACKED_VALUES, limiters.maxKeyBytes, TrackedKeys::bytes);
  }

  /** The state of {@code rule}, which differs from {@code twin}'s rule in {@code shadow} or {@code name} only: the same limiters. */
  ParamFlowRuleState(ParamFlowRule rule, ParamFlowRuleState twin) {
    this.rule = rule;
    this.clusterName = twin.clusterName;
    this.shadow = ShadowRefusals.of(rule);
    this.key = twin.key;
    this.limiters = twin.limiters;
    this.exceptionCounts = twin.exceptionCounts;
    this.byValue = twin.byValue;
  }

  /** Whether the rule may make a call wait: a queueing rule in force (in shadow mode, calls never wait). */
  boolean waits() {
    return shadow == null && rule.grade() == FlowGrade.QPS && rule.controlBehavior() == ControlBehavior.QUEUE;
  }

  /**
   * What this rule counts the call under: its key expression's value, or the argument at its index
   * (either may be null, a collection or an array); {@link #ABSENT} when the call has no such argument.
   */
  @Nullable Object argument(Object @Nullable [] args) {
    KeyExpressions.ParamKey compiled = key;
    if (compiled != null) {
      return compiled.keyOf(args == null ? NO_ARGS : args);
    }
    if (args == null) {
      return ABSENT;
    }
    int index = rule.paramIndex() < 0 ? args.length + rule.paramIndex() : rule.paramIndex();
    return index >= 0 && index < args.length ? args[index] : ABSENT;
  }

  /**
   * What one value of the call (the key, or an element of it) counts under: the value itself, or
   * its {@link ParamFlowKey#paramFlowKey()}, as the table keeps it ({@link TrackedKeys#compact}: a
   * long string by its digest); a null key is decided by the rule's {@code null-key}:
   * null when it is not limited ({@code allow}), {@link #DENIED} when it is refused ({@code deny}),
   * else {@link #NULL_KEY}.
   */
  @Nullable Object counted(@Nullable Object value) {
    Object key = value instanceof ParamFlowKey custom ? custom.paramFlowKey() : value;
    if (key != null) {
      return TrackedKeys.compact(key);
    }
    return switch (rule.nullKey()) {
      case ALLOW -> null;
      case DENY -> DENIED;
      case SHARED -> NULL_KEY;
    };
  }

  /** Whether the key (or argument) holds several values, each counted on its own: a collection or an array. */
  static boolean isMany(@Nullable Object key) {
    return key instanceof Collection<?> || (key != null && key.getClass().isArray());
  }

  FlowLimiter limiterFor(Object key) {
    return byValue.get(key, newLimiter);
  }

  /** The limiter of {@code key} if it has one now; for reading quotas, which create nothing. */
  @Nullable FlowLimiter existingLimiter(Object key) {
    return byValue.peek(key);
  }

  /** Whether {@code key} (as counted) has a limiter now, without counting as a use of it; for tests and reports. */
  boolean tracks(Object key) {
    return byValue.contains(key);
  }

  int trackedValues() {
    return byValue.size();
  }

  /** The estimated bytes of the keys tracked and their limiters ({@link TrackedKeys#bytes}). */
  long trackedBytes() {
    return byValue.bytes();
  }

  /**
   * The count of {@code key} (as counted): its exception's, else the rule's; the null keys' always
   * the rule's. An exception matches {@code String.valueOf} of the key as the table keeps both: a
   * string key or a digest is looked up as it is (a long key's digest matches the digest of the
   * same long value only, never the text of a digest), a key of another type by its text, compacted.
   */
  double countOf(Object key) {
    if (key == NULL_KEY) {
      return rule.count();
    }
    Object value = key instanceof String || key instanceof TrackedKeys.Digest ? key
        : TrackedKeys.compact(String.valueOf(key));
    return exceptionCounts.getOrDefault(value, rule.count());
  }

  private FlowLimiter newLimiter(Object key) {
    String name = clusterName;
    return name == null ? limiters.forParamValue(rule, countOf(key)) : limiters.forParamValue(rule, name, key, countOf(key));
  }
}
