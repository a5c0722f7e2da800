package dev.weir.spring.cluster;

import static dev.weir.spring.cluster.ClusterFaults.await;
import static dev.weir.spring.cluster.ClusterFaults.awaitConnected;
import static dev.weir.spring.cluster.ClusterFaults.awaitStoreAdmits;
import static dev.weir.spring.cluster.ClusterFaults.guarded;
import static dev.weir.spring.cluster.ClusterFaults.props;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code weir.cluster.fallback: share} with two instances (Spring contexts) and a real
 * {@code redis-server}: they announce themselves, learn that they are two, and once Redis is killed
 * each applies half the count, so together they keep the count.
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

  @Test
  void withRedisKilledTwoInstancesUnderThreadsTogetherKeepTheCountInEverySpan() throws Exception {
    ConfigurableApplicationContext a = start(redis.port(), share());
    ConfigurableApplicationContext b = start(redis.port(), share());
    try {
      awaitConnected(a);
      awaitConnected(b);
      await("both instances count two", () -> status(a).liveInstances() == 2 && status(b).liveInstances() == 2);
      ClusterStatus statusA = status(a);
      awaitStoreAdmits(statusA, guarded(a)::call);
      redis.kill();
      long fallbacksBefore = statusA.fallbacks() + status(b).fallbacks();

      // Admission times on this JVM's clock, recorded when the call returns.
      Queue<Long> admittedA = new ConcurrentLinkedQueue<>();
      Queue<Long> admittedB = new ConcurrentLinkedQueue<>();
      List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
      long end = System.nanoTime() + Duration.ofMillis(2500).toNanos();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        ClusterFaultApplication.Guarded target = guarded(t % 2 == 0 ? a : b);
        Queue<Long> admitted = t % 2 == 0 ? admittedA : admittedB;
        Thread thread = new Thread(() -> {
          while (System.nanoTime() - end < 0) { // ends at the deadline; each call is bounded by the 50 ms timeout
            try {
              target.call();
              admitted.add(System.nanoTime());
            } catch (FlowException e) {
              // refused by this instance's share
            } catch (RuntimeException | Error e) {
              unexpected.add(e);
            }
            ClusterFaults.sleep(1);
          }
        }, "share-" + t);
        thread.start();
        threads.add(thread);
      }
      for (Thread thread : threads) {
        thread.join(30_000);
        assertThat(thread.isAlive()).isFalse();
      }
      List<Long> all = new ArrayList<>(admittedA);
      all.addAll(admittedB);
      // The local exact windows bound decision times; a call returns up to 100 ms after its decision
      // on this busy machine, so spans of 900 ms of return times hold decisions of under 1 s.
      long span = Duration.ofMillis(900).toNanos();
      System.out.printf("[share] admitted a %d, b %d; most in a 900 ms span: a %d, b %d, both %d%n", admittedA.size(),
          admittedB.size(), Spans.mostInAnySpan(new ArrayList<>(admittedA), span),
          Spans.mostInAnySpan(new ArrayList<>(admittedB), span), Spans.mostInAnySpan(all, span));
      assertThat(unexpected).isEmpty();
      assertThat(statusA.fallbacks() + status(b).fallbacks()).isGreaterThan(fallbacksBefore);
      assertThat(Spans.mostInAnySpan(new ArrayList<>(admittedA), span)).isLessThanOrEqualTo(5);
      assertThat(Spans.mostInAnySpan(new ArrayList<>(admittedB), span)).isLessThanOrEqualTo(5);
      assertThat(Spans.mostInAnySpan(all, span)).isLessThanOrEqualTo(10);
      // Each kept serving: its share in each of the two and a half seconds' windows.
      assertThat(admittedA.size()).isBetween(10, 15);
      assertThat(admittedB.size()).isBetween(10, 15);
    } finally {
      ClusterFaults.closeAll(a, b);
    }
  }
}
