package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.ParamFlowException;
import dev.weir.Weir;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.ParamFlowRule;
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
