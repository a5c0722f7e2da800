package dev.weir.benchmarks;

import dev.weir.ContextScope;
import dev.weir.Entry;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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
 * One guarded call on a fresh virtual thread, as with thread-per-request virtual threads: each
 * operation starts a virtual thread, makes one call in it and waits for it to end. The
 * allocation of Weir's call is the difference between {@code vt_weirCall} and
 * {@code vt_baseline} (a virtual thread that does nothing) in {@code gc.alloc.rate.norm};
 * {@code vt_weirCallInContext} adds the context scope the MVC filter opens for each request.
 * {@code platform_weirCall} is the same call on the benchmark's own (platform) thread, whose frames
 * are pooled. Needs JDK 21+ (run with {@code JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java});
 * compiled for Java 17, so the executor is made through reflection.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
@Threads(1)
@State(Scope.Benchmark)
public class VirtualThreadBenchmark {

  ExecutorService virtualThreads;
  Weir weir;
  Runnable nothing;
  Runnable oneCall;
  Runnable oneCallInContext;

  @Setup(Level.Trial)
  public void setUp() throws ReflectiveOperationException {
    if (Runtime.version().feature() < 21) {
      throw new IllegalStateException("virtual threads need JDK 21+, this is " + Runtime.version());
    }
    virtualThreads = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    weir = Weir.builder().rules(RuleSet.of(FlowRule.qps("vt", 2_000_000_000))).build();
    nothing = () -> { };
    oneCall = () -> {
      try (Entry entry = weir.entry("vt")) {
        // the call
      }
    };
    oneCallInContext = () -> {
      try (ContextScope scope = weir.enterContext("weir_web_context", "origin"); Entry entry = weir.entry("vt")) {
        // the call
      }
    };
  }

  @TearDown(Level.Trial)
  public void tearDown() throws InterruptedException {
    virtualThreads.shutdown();
    virtualThreads.awaitTermination(10, TimeUnit.SECONDS);
    if (weir.statistics("vt").totalBlocked() != 0) {
      throw new IllegalStateException("refused calls");
    }
  }

  @Benchmark
  public Object vt_baseline() throws Exception {
    return virtualThreads.submit(nothing).get();
  }

  @Benchmark
  public Object vt_weirCall() throws Exception {
    return virtualThreads.submit(oneCall).get();
  }

  @Benchmark
  public Object vt_weirCallInContext() throws Exception {
    return virtualThreads.submit(oneCallInContext).get();
  }

  @Benchmark
  public void platform_weirCall() {
    oneCall.run();
  }
}
