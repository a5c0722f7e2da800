package dev.weir.benchmarks;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The physical floor the cost model of a guarded call is written against ({@code docs/performance.md},
 * "Cost model"): what one of each operation the hot path may do costs on this machine, one thread.
 * <ul>
 *   <li>{@code nanoTime}: {@code System.nanoTime()}, the precise clock;
 *   <li>{@code volatileRead}: a volatile long field (the coarse clock's reading, a rules pointer);
 *   <li>{@code cas}: an uncontended {@code AtomicLong.compareAndSet} (a limiter's admission);
 *   <li>{@code getAndAdd}: an uncontended {@code AtomicLong.getAndAdd} (a locked add);
 *   <li>{@code longAdderAdd}: an uncontended {@code LongAdder.add};
 *   <li>{@code threadLocalGet}: a {@code ThreadLocal.get} hit (the thread's call stack);
 *   <li>{@code mapGet}: a {@code ConcurrentHashMap.get} hit by a String key (a resource by name).
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(2)
@Threads(1)
@State(Scope.Thread)
public class FloorBenchmark {

  volatile long field = 42;
  final AtomicLong atomic = new AtomicLong();
  final LongAdder adder = new LongAdder();
  final ThreadLocal<Object> local = ThreadLocal.withInitial(Object::new);
  final ConcurrentHashMap<String, Object> map = new ConcurrentHashMap<>();
  String key;

  @Setup(Level.Trial)
  public void setUp() {
    for (int i = 0; i < 100; i++) {
      map.put("resource-" + i, new Object());
    }
    key = new String("resource-42"); // another instance than the map's: equals compares characters
    local.get();
  }

  @Benchmark
  public long nanoTime() {
    return System.nanoTime();
  }

  @Benchmark
  public long volatileRead() {
    return field;
  }

  @Benchmark
  public boolean cas() {
    long seen = atomic.get();
    return atomic.compareAndSet(seen, seen + 1);
  }

  @Benchmark
  public long getAndAdd() {
    return atomic.getAndAdd(1);
  }

  @Benchmark
  public void longAdderAdd() {
    adder.add(1);
  }

  @Benchmark
  public Object threadLocalGet() {
    return local.get();
  }

  @Benchmark
  public Object mapGet() {
    return map.get(key);
  }
}
