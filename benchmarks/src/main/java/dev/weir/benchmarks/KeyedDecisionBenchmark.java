package dev.weir.benchmarks;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Weir;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.spring.keys.KeyArguments;
import dev.weir.spring.keys.KeyLanguage;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.Bucket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One per-key decision for an existing key, 1000 keys in turn, none ever refused:
 * <ul>
 *   <li>{@code expressionKey_weir}: a param-flow rule keyed by the key expression {@code #apiKey}
 *       (compiled by {@link KeyLanguage}, as the starter does), {@code entry} + {@code close};
 *   <li>{@code argumentKey_weir}: the same rule keyed by {@code param-index: 0};
 *   <li>{@code perKey_bucket4j}: what bucket4j-spring-boot-starter does with a cache: the key's
 *       {@link Bucket} looked up in a {@link ConcurrentHashMap}, then {@code tryConsume(1)}.
 * </ul>
 * Run with {@code -prof gc} for the bytes per decision (target: 0 after warm-up).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
@Threads(1)
public class KeyedDecisionBenchmark {

  static final int KEYS = 1000;
  /** Per key, far above what one thread reaches on one key. */
  static final double RATE = 1_000_000_000d;

  /** The keys and, for Weir, each key's argument array made once (a call's arguments are the caller's). */
  @State(Scope.Benchmark)
  public static class Keys {
    final String[] keys = new String[KEYS];
    final Object[][] args = new Object[KEYS][];

    @Setup(Level.Trial)
    public void setUp() {
      for (int i = 0; i < KEYS; i++) {
        keys[i] = "api-key-" + i;
        args[i] = new Object[] {keys[i]};
      }
    }
  }

  /** Weir's engines: one with the key expression, one keyed by argument index. */
  @State(Scope.Benchmark)
  public static class WeirState {
    Weir byExpression;
    Weir byIndex;

    @Setup(Level.Trial)
    public void setUp() {
      KeyLanguage keys = new KeyLanguage(resource -> KeyArguments.named(List.of("apiKey")));
      byExpression = Weir.builder().keyExpressions(keys).rules(RuleSet.empty().withParamFlow(List.of(
          ParamFlowRule.builder("r").key("#apiKey").count(RATE).build()))).build();
      byIndex = Weir.builder().rules(RuleSet.empty().withParamFlow(List.of(
          ParamFlowRule.builder("r").paramIndex(0).count(RATE).build()))).build();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
      byExpression.close();
      byIndex.close();
    }
  }

  /** Bucket4j: a bucket per key in a concurrent map. */
  @State(Scope.Benchmark)
  public static class Bucket4jState {
    final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();

    Bucket bucket(String key) {
      return buckets.computeIfAbsent(key, k -> Bucket.builder().addLimit(Bandwidth.builder()
          .capacity((long) RATE).refillGreedy((long) RATE, Duration.ofSeconds(1)).build()).build());
    }
  }

  /** Each thread walks the keys in turn. */
  @State(Scope.Thread)
  public static class Cursor {
    int next;

    int advance() {
      int at = next;
      next = at + 1 == KEYS ? 0 : at + 1;
      return at;
    }
  }

  @Benchmark
  public boolean expressionKey_weir(WeirState weir, Keys keys, Cursor cursor) {
    return decide(weir.byExpression, keys.args[cursor.advance()]);
  }

  @Benchmark
  public boolean argumentKey_weir(WeirState weir, Keys keys, Cursor cursor) {
    return decide(weir.byIndex, keys.args[cursor.advance()]);
  }

  @Benchmark
  public boolean perKey_bucket4j(Bucket4jState bucket4j, Keys keys, Cursor cursor) {
    return bucket4j.bucket(keys.keys[cursor.advance()]).tryConsume(1);
  }

  private static boolean decide(Weir weir, Object[] args) {
    try (Entry entry = weir.entry("r", EntryType.OUT, 1, args)) {
      return true;
    } catch (BlockException refused) {
      return false;
    }
  }
}
