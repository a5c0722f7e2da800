package dev.weir.spring.cluster;

import static dev.weir.spring.cluster.ClusterFaults.await;
import static dev.weir.spring.cluster.ClusterFaults.awaitConnected;
import static dev.weir.spring.cluster.ClusterFaults.awaitStoreAdmits;
import static dev.weir.spring.cluster.ClusterFaults.guarded;
import static dev.weir.spring.cluster.ClusterFaults.shape;
import static dev.weir.spring.cluster.ClusterFaults.start;
import static dev.weir.spring.cluster.ClusterFaults.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.CircuitState;
import dev.weir.ClusterStatus;
import dev.weir.FlowException;
import dev.weir.spring.actuate.WeirHealthIndicator;
import dev.weir.spring.test.RedisServer;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The {@code cluster} details of the {@code weir} health contributor through a Redis that is up,
 * killed, and back: reachability with the error, the breaker, the decisions; the contributor itself
 * stays {@code UP}. With leases ({@code lease-window}) the details are the same: a call admitted
 * from a lease counts as admitted by Redis, once.
 */
class ClusterFaultHealthTests extends WithRedisServer {

  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "lease-window"})
  void clusterDetailsFollowRedisThroughAKillAndARestart(String shape) {
    // A breaker that stays open long enough to be read; a deadline (the health ping's too) that a
    // live Redis meets on a busy machine, so that it is reachable whenever it is up. A dead one
    // fails at once: the breaker opens on errors.
    ConfigurableApplicationContext context = start(redis.port(), shape(shape,
        "weir.cluster.timeout", "2s", "weir.cluster.open-duration", "2s"));
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      WeirHealthIndicator indicator = context.getBean("weirHealthIndicator", WeirHealthIndicator.class);
      awaitConnected(context);
      awaitStoreAdmits(status, guarded::call);
      // A limit is leased once an instance asks it 8 permits within a lease's validity (10 ms here),
      // or Redis refuses one of its calls; before, it is decided per call (docs/cluster-leases.md,
      // hot and cold). 30 calls in a row pass the limit of 20 per second, whatever their pace.
      for (int i = 0; i < 30; i++) {
        try {
          guarded.call();
        } catch (FlowException refused) {
          // the limit of 20 per second may refuse some
        }
      }

      Map<String, Object> up = cluster(indicator);
      assertThat(up).containsEntry("store", "redis 127.0.0.1:" + redis.port())
          .containsEntry("reachable", true)
          .containsEntry("breaker", "closed")
          .containsEntry("fallback", "local")
          .containsKey("pingMillis")
          .doesNotContainKey("error");
      // The same details with leases as without: nothing about leases is added.
      assertThat(up).containsOnlyKeys("store", "reachable", "pingMillis", "breaker", "fallback", "decisions",
          "inFlight");
      assertThat(map(up.get("decisions"))).containsOnlyKeys("admitted", "blocked", "fallback");
      assertThat(map(up.get("decisions")).get("admitted")).isEqualTo(status.admitted());
      assertThat(status.leaseRequests() > 0).as("the rule leased").isEqualTo(shape.startsWith("lease"));

      java.time.Instant startedAt = java.time.Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MILLIS);
      redis.kill();
      Map<String, Object> killed = cluster(indicator);
      assertThat(killed).containsEntry("reachable", false).containsEntry("breaker", "closed");
      assertThat((String) killed.get("error")).isNotBlank();

      await("the breaker opens", () -> {
        try {
          guarded.call();
        } catch (FlowException refused) {
          // the local limiter of 20 per second
        }
        return status.breakerState() == CircuitState.OPEN;
      });
      Map<String, Object> open = cluster(indicator);
      System.out.printf("[health] up %s%n  killed %s%n  open %s%n", up, killed, open);
      assertThat(open).containsEntry("reachable", false).containsEntry("breaker", "open");
      assertThat((String) open.get("lastFailure")).isNotBlank();
      java.time.Instant failedAt = java.time.Instant.parse((String) open.get("lastFailureAt"));
      assertThat(failedAt).as("the last failure's time").isBetween(startedAt, java.time.Instant.now())
          .isEqualTo(status.lastFailureTime());
      assertThat((Long) map(open.get("decisions")).get("fallback")).isGreaterThanOrEqualTo(3L);

      redis.restart();
      await("health finds Redis reachable again", () -> Boolean.TRUE.equals(cluster(indicator).get("reachable")));
      awaitStoreAdmits(status, guarded::call);
      assertThat(cluster(indicator)).containsEntry("reachable", true).containsEntry("breaker", "closed");
    } finally {
      context.close();
    }
  }

  /** The details under {@code cluster}; the contributor is {@code UP} whatever Redis does. */
  private static Map<String, Object> cluster(WeirHealthIndicator indicator) {
    Health health = indicator.health();
    assertThat(health.getStatus()).isEqualTo(Status.UP);
    return map(health.getDetails().get("cluster"));
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    assertThat(value).isInstanceOf(Map.class);
    return (Map<String, Object>) value;
  }
}
