package dev.weir.spring.cluster;

import static dev.weir.spring.cluster.ClusterFaults.await;
import static dev.weir.spring.cluster.ClusterFaults.awaitConnected;
import static dev.weir.spring.cluster.ClusterFaults.awaitStoreAdmits;
import static dev.weir.spring.cluster.ClusterFaults.guarded;
import static dev.weir.spring.cluster.ClusterFaults.props;
import static dev.weir.spring.cluster.ClusterFaults.shape;
import static dev.weir.spring.cluster.ClusterFaults.start;
import static dev.weir.spring.cluster.ClusterFaults.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.ClusterStatus;
import dev.weir.FlowException;
import dev.weir.spring.redis.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code weir.cluster.fallback: share} with two instances (Spring contexts) and a real
 * {@code redis-server}: they announce themselves, learn that they are two, and once Redis is killed
 * each applies half the count, so together they keep the count; with leases too ({@code lease-exact}).
 */
@Timeout(120)
class ClusterShareFallbackTests extends WithRedisServer {

  private static Map<String, String> share() {
    return props("weir.cluster.fallback", "share", "weir.flow[0].count", "10", "weir.flow[0].exact", "true");
  }

  @Test
  void instancesAnnounceThemselvesAndEachSeesTheLiveCount() {
    ConfigurableApplicationContext a = start(redis.port(), share());
    ConfigurableApplicationContext b = start(redis.port(), share());
    try {
      awaitConnected(a);
      awaitConnected(b);
      await("both instances count two", () -> status(a).liveInstances() == 2 && status(b).liveInstances() == 2);
      assertThat(redis.call("ZCARD", "faults:instances")).isEqualTo(2L);
      @SuppressWarnings("unchecked")
      Map<String, Object> details = (Map<String, Object>) a.getBean("weirHealthIndicator",
          dev.weir.spring.actuate.WeirHealthIndicator.class).health().getDetails().get("cluster");
      assertThat(details).containsEntry("liveInstances", 2).containsEntry("fallback", "share");
      assertThat((Long) redis.call("PTTL", "faults:instances"))
          .isBetween(1L, RedisClusterClient.INSTANCE_TTL.toMillis());
      b.close();
      await("the instance left is alone", () -> status(a).liveInstances() == 1);
    } finally {
      ClusterFaults.closeAll(a, b);
    }
  }

  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"exact", "lease-exact"})
  void withRedisKilledTwoInstancesUnderThreadsTogetherKeepTheCountInEverySpan(String shape) throws Exception {
    // The engines read the clock on every call: the spans below bracket each decision with this
    // test's own readings of the JVM's clock, which the default coarse engine time trails.
    Map<String, String> share = new java.util.LinkedHashMap<>(
        shape(shape, "weir.cluster.fallback", "share", "weir.flow[0].count", "10"));
    share.put("weir.clock-resolution", "0");
    ConfigurableApplicationContext a = start(redis.port(), share);
    ConfigurableApplicationContext b = start(redis.port(), share);
    try {
      awaitConnected(a);
      awaitConnected(b);
      await("both instances count two", () -> status(a).liveInstances() == 2 && status(b).liveInstances() == 2);
      ClusterStatus statusA = status(a);
      awaitStoreAdmits(statusA, guarded(a)::call);
      redis.kill();
      // With leases, what each instance holds of Redis' last answers decides until it ends (a lease
      // of 10 ms, a refusal 100 ms): the shares decide after that.
      ClusterFaults.afterLastAnswers(shape, Duration.ofSeconds(1));
      long fallbacksBefore = statusA.fallbacks() + status(b).fallbacks();

      // Each call on this JVM's clock, as the readings around it: its decision lies in between.
      Queue<Spans.Call> admittedA = new ConcurrentLinkedQueue<>();
      Queue<Spans.Call> admittedB = new ConcurrentLinkedQueue<>();
      Queue<Spans.Call> refusedA = new ConcurrentLinkedQueue<>();
      Queue<Spans.Call> refusedB = new ConcurrentLinkedQueue<>();
      List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        ClusterFaultApplication.Guarded target = guarded(t % 2 == 0 ? a : b);
        Queue<Spans.Call> admitted = t % 2 == 0 ? admittedA : admittedB;
        Queue<Spans.Call> refused = t % 2 == 0 ? refusedA : refusedB;
        Thread thread = new Thread(() -> {
          while (!stop.get()) { // ends when told; each call is bounded by the 50 ms timeout
            long began = System.nanoTime();
            try {
              target.call();
              admitted.add(new Spans.Call(began, System.nanoTime()));
            } catch (FlowException e) {
              refused.add(new Spans.Call(began, System.nanoTime())); // refused by this instance's share
            } catch (RuntimeException | Error e) {
              unexpected.add(e);
            }
            ClusterFaults.sleep(1);
          }
        }, "share-" + t);
        thread.start();
        threads.add(thread);
      }
      // 2.5 s, and until each instance refused a call: its share was what limited it.
      ClusterFaults.sleep(2_500);
      await("each instance refuses by its share", () -> !refusedA.isEmpty() && !refusedB.isEmpty());
      stop.set(true);
      for (Thread thread : threads) {
        thread.join(30_000);
        assertThat(thread.isAlive()).isFalse();
      }
      List<Spans.Call> all = new ArrayList<>(admittedA);
      all.addAll(admittedB);
      long second = Duration.ofSeconds(1).toNanos();
      System.out.printf("[share] admitted a %d, b %d, refused a %d, b %d; most surely in a second: a %d, b %d,"
              + " both %d%n", admittedA.size(), admittedB.size(), refusedA.size(), refusedB.size(),
          Spans.mostSurelyInAnySpan(new ArrayList<>(admittedA), second),
          Spans.mostSurelyInAnySpan(new ArrayList<>(admittedB), second), Spans.mostSurelyInAnySpan(all, second));
      assertThat(unexpected).isEmpty();
      assertThat(statusA.fallbacks() + status(b).fallbacks()).isGreaterThan(fallbacksBefore);
      // Each instance's share is an exact window of 5 a second: never more in any second, together
      // never more than the count; and never a refusal without 5 admissions in the second before it.
      assertThat(Spans.mostSurelyInAnySpan(new ArrayList<>(admittedA), second)).isLessThanOrEqualTo(5);
      assertThat(Spans.mostSurelyInAnySpan(new ArrayList<>(admittedB), second)).isLessThanOrEqualTo(5);
      assertThat(Spans.mostSurelyInAnySpan(all, second)).isLessThanOrEqualTo(10);
      assertThat(Spans.unjustifiedRefusals(new ArrayList<>(admittedA), new ArrayList<>(refusedA), second, 5))
          .as("refusals of a without its share used up").isEmpty();
      assertThat(Spans.unjustifiedRefusals(new ArrayList<>(admittedB), new ArrayList<>(refusedB), second, 5))
          .as("refusals of b without its share used up").isEmpty();
    } finally {
      ClusterFaults.closeAll(a, b);
    }
  }
}
