package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.ParamFlowException;
import dev.weir.Weir;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A param-flow rule with a SpEL key and {@code cluster-mode: true}, through {@code @RateLimited}
 * in two Spring contexts against one real {@code redis-server}: each key's count is shared by both
 * instances, keys do not share, and the {@code deny} fallback makes "at most" impossible to meet by
 * luck (every test also asserts that no fallback happened).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PerKeyClusterRuleTests extends WithSharedRedisServer {

  private static final AtomicInteger PREFIXES = new AtomicInteger();

  private final String prefix = "perkeyrule" + PREFIXES.incrementAndGet();

  @Test
  void eachKeyIsCountedOnceAcrossBothInstancesUnderThreads() throws Exception {
    KeyedQuotesApplication.Quotes a = quotes(instance());
    KeyedQuotesApplication.Quotes b = quotes(instance());
    String[] keys = {"k-0", "k-1", "k-2"};
    AtomicIntegerArray admitted = new AtomicIntegerArray(keys.length);
    AtomicInteger refused = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(16);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    long began = System.nanoTime();
    for (int t = 0; t < 16; t++) {
      KeyedQuotesApplication.Quotes target = t % 2 == 0 ? a : b;
      done.add(pool.submit(() -> {
        start.await();
        for (int i = 0; i < 30; i++) {
          int k = i % keys.length;
          try {
            target.quote(keys[k]);
            admitted.incrementAndGet(k);
          } catch (ParamFlowException e) {
            refused.incrementAndGet();
          }
        }
        return null;
      }));
    }
    start.countDown();
    for (Future<?> future : done) {
      future.get(30, TimeUnit.SECONDS);
    }
    double seconds = (System.nanoTime() - began) / 1e9;
    pool.shutdown();
    // Each key: a bucket of 20 per 10 s, refilled 2 per second while the test ran.
    long bound = 20 + (long) Math.ceil(seconds * 2);
    for (int k = 0; k < keys.length; k++) {
      assertThat(admitted.get(k)).as("key %s in %.2f s", keys[k], seconds).isBetween(20, (int) bound);
    }
    int total = admitted.get(0) + admitted.get(1) + admitted.get(2);
    assertThat(total + refused.get()).isEqualTo(16 * 30);
    long fallbacks = instances.stream().mapToLong(c -> c.getBean(Weir.class).cluster().fallbacks()).sum();
    assertThat(fallbacks).isZero();
    @SuppressWarnings("unchecked")
    List<Object> redisKeys = (List<Object>) redis.call("KEYS", prefix + ":*");
    assertThat(redisKeys).as("one small key per (rule, key)").hasSize(3);
  }

  @Test
  void onlyATokenBucketRuleCanBeClustered() {
    Weir weir = instance().getBean(Weir.class);
    assertThatThrownBy(() -> weir.rules().replace("keyed", RuleSet.empty().withParamFlow(List.of(
        ParamFlowRule.builder("keyed").key("#apiKey").count(5).clusterMode(true)
            .controlBehavior(dev.weir.rule.ControlBehavior.QUEUE).maxQueueingTime(Duration.ofMillis(10)).build()))))
        .isInstanceOf(InvalidRulesException.class).hasMessageContaining("param-flow[0].cluster-mode")
        .hasMessageContaining("reject only");
  }

  /**
   * Issue 35: a rule of 10 per key in force and a shadow rule of 5 on the same key expression and
   * duration shared one Redis key, so every call took a permit of it twice and the rule in force
   * admitted 4 per key. Each now has its own key: the rule in force admits its 10 per key across
   * both instances, and the shadow rule counts the 5 it would have refused, per key.
   */
  @Test
  void aShadowRuleBesideARuleInForceChangesNothingItAdmits() {
    List<ConfigurableApplicationContext> both = List.of(instance(twoRules("5", "0", true)),
        instance(twoRules("5", "0", true)));
    for (String key : List.of("k-0", "k-1")) {
      assertThat(admitted(both, key, 16)).as("key %s", key).isEqualTo(10);
    }
    long shadowBlocked = both.stream().mapToLong(c -> c.getBean(Weir.class).statistics("keyed")
        .totalShadowBlocked(RuleKind.PARAM_FLOW)).sum();
    assertThat(shadowBlocked).as("the shadow rule's would-be refusals: 5 of the 10 calls each key's rule admitted")
        .isEqualTo(10);
    assertNoFallback();
    assertThat(redisKeys()).containsExactlyInAnyOrder(
        prefix + ":{keyed|k-0}:pk:key=#apiKey,3600000ms", prefix + ":{keyed|k-0}:pk:key=#apiKey,3600000ms,shadow",
        prefix + ":{keyed|k-1}:pk:key=#apiKey,3600000ms", prefix + ":{keyed|k-1}:pk:key=#apiKey,3600000ms,shadow");
  }

  /**
   * Issue 35: two rules in force on the same key expression and duration (10, and 10 with a burst
   * of 5) were accepted and then admitted 5 per key, each call counted twice in one Redis key. The
   * second now counts in a key of its own ({@code ,#2}): the first, the stricter, admits its 10.
   */
  @Test
  void twoRulesInForceOnOneKeyExpressionEachCountACallOnce() {
    List<ConfigurableApplicationContext> both = List.of(instance(twoRules("10", "5", false)),
        instance(twoRules("10", "5", false)));
    for (String key : List.of("k-0", "k-1")) {
      assertThat(admitted(both, key, 16)).as("key %s", key).isEqualTo(10);
    }
    assertNoFallback();
    assertThat(redisKeys()).containsExactlyInAnyOrder(
        prefix + ":{keyed|k-0}:pk:key=#apiKey,3600000ms", prefix + ":{keyed|k-0}:pk:key=#apiKey,3600000ms,#2",
        prefix + ":{keyed|k-1}:pk:key=#apiKey,3600000ms", prefix + ":{keyed|k-1}:pk:key=#apiKey,3600000ms,#2");
  }

  /**
   * The same with leases ({@code weir.cluster.lease: true}, {@code lease-gcra.lua}): the shadow
   * rule leases from its own key, so the rule in force still admits exactly its 10 per key, and
   * the leases are each rule's.
   */
  @Test
  void withLeasesAShadowRuleChangesNothingEither() {
    Map<String, String> leased = new java.util.HashMap<>(twoRules("5", "0", true));
    leased.put("weir.cluster.lease", "true");
    ConfigurableApplicationContext one = instance(leased);
    for (String key : List.of("k-0", "k-1")) {
      assertThat(admitted(List.of(one), key, 40)).as("key %s", key).isEqualTo(10);
    }
    assertThat(one.getBean(Weir.class).cluster().leaseRequests()).as("lease round trips").isPositive();
    assertNoFallback();
    assertThat(redisKeys()).contains(prefix + ":{keyed|k-0}:pk:key=#apiKey,3600000ms",
        prefix + ":{keyed|k-0}:pk:key=#apiKey,3600000ms,shadow");
  }

  /**
   * The properties of two cluster-mode rules of {@code keyed} on {@code #apiKey} per hour: 10 per key
   * in force, then one of {@code count} with {@code burst}, in shadow mode or in force.
   */
  private static Map<String, String> twoRules(String count, String burst, boolean shadow) {
    return Map.ofEntries(
        Map.entry("weir.cluster.timeout", "2s"),
        Map.entry("weir.cluster.fallback", "deny"),
        Map.entry("weir.param-flow[0].resource", "keyed"),
        Map.entry("weir.param-flow[0].key", "#apiKey"),
        Map.entry("weir.param-flow[0].count", "10"),
        Map.entry("weir.param-flow[0].duration", "1h"),
        Map.entry("weir.param-flow[0].cluster-mode", "true"),
        Map.entry("weir.param-flow[1].resource", "keyed"),
        Map.entry("weir.param-flow[1].key", "#apiKey"),
        Map.entry("weir.param-flow[1].count", count),
        Map.entry("weir.param-flow[1].burst", burst),
        Map.entry("weir.param-flow[1].duration", "1h"),
        Map.entry("weir.param-flow[1].shadow", Boolean.toString(shadow)),
        Map.entry("weir.param-flow[1].cluster-mode", "true"));
  }

  /** Calls {@code quote(key)} {@code calls} times, on each of {@code contexts} in turn; returns how many were admitted. */
  private static int admitted(List<ConfigurableApplicationContext> contexts, String key, int calls) {
    int admitted = 0;
    for (int i = 0; i < calls; i++) {
      try {
        quotes(contexts.get(i % contexts.size())).quote(key);
        admitted++;
      } catch (ParamFlowException refused) {
        // counted by what is not
      }
    }
    return admitted;
  }

  private void assertNoFallback() {
    long fallbacks = instances.stream().mapToLong(c -> c.getBean(Weir.class).cluster().fallbacks()).sum();
    assertThat(fallbacks).as("decisions that fell back").isZero();
  }

  /** The Redis keys of this test, lease keys ({@code :d}, {@code :i:<instance>}) left out. */
  private List<String> redisKeys() {
    @SuppressWarnings("unchecked")
    List<Object> keys = (List<Object>) redis.call("KEYS", prefix + ":*");
    return keys.stream().map(String::valueOf).filter(k -> !k.endsWith(":d") && !k.contains(":i:")).toList();
  }

  private ConfigurableApplicationContext instance(Map<String, String> properties) {
    return instance(KeyedQuotesApplication.class, prefix, properties);
  }

  private ConfigurableApplicationContext instance() {
    return instance(KeyedQuotesApplication.class, prefix, Map.of(
        "weir.cluster.timeout", "2s",
        "weir.cluster.fallback", "deny",
        "weir.param-flow[0].resource", "keyed",
        "weir.param-flow[0].key", "#apiKey",
        "weir.param-flow[0].count", "20",
        "weir.param-flow[0].duration", "10s",
        "weir.param-flow[0].cluster-mode", "true"));
  }

  private static KeyedQuotesApplication.Quotes quotes(ConfigurableApplicationContext context) {
    return context.getBean(KeyedQuotesApplication.Quotes.class);
  }
}
