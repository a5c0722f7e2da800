package dev.weir.benchmarks;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import dev.weir.spring.actuate.WeirEndpoint;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.json.JsonMapper;

/**
 * What one open dashboard costs the application each second: one read of {@code GET /actuator/weir}
 * at the engine's bound of 6000 resources (every one with statistics, 100 of them with a flow rule),
 * without HTTP:
 * <ul>
 *   <li>{@code describe}: {@link WeirEndpoint#weir()}, the statistics and rules of every resource;
 *   <li>{@code describeAndWrite}: the same written as JSON with Jackson 3, as the actuator does.
 * </ul>
 * No peer has a page of its own in the application to compare with (Sentinel's dashboard is a
 * separate server that polls each instance's own HTTP API). Run with {@code -prof gc}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
@Threads(1)
public class DashboardReadBenchmark {

  static final int RESOURCES = 6000;

  /** An engine at its resource bound, and its endpoint. */
  @State(Scope.Benchmark)
  public static class Dashboard {
    final JsonMapper json = JsonMapper.builder().build();
    WeirEndpoint endpoint;

    @Setup
    public void setUp() throws BlockException {
      Weir weir = Weir.builder().build();
      List<FlowRule> rules = new java.util.ArrayList<>();
      for (int i = 0; i < 100; i++) {
        rules.add(FlowRule.qps(String.format("bulk.resource-%04d", i), 1_000_000));
      }
      weir.rules().load(RuleSet.of(rules.toArray(FlowRule[]::new)));
      for (int i = 0; i < RESOURCES; i++) {
        String name = String.format("bulk.resource-%04d", i);
        try (Entry entry = weir.entry(name)) {
          assert entry != null;
        }
      }
      endpoint = new WeirEndpoint(weir);
      if (endpoint.weir().resources().size() != RESOURCES) {
        throw new IllegalStateException("expected " + RESOURCES + " resources");
      }
    }
  }

  @Benchmark
  public Object describe(Dashboard dashboard) {
    return dashboard.endpoint.weir();
  }

  @Benchmark
  public byte[] describeAndWrite(Dashboard dashboard) {
    return dashboard.json.writeValueAsBytes(dashboard.endpoint.weir());
  }
}
