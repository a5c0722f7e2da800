package dev.weir.spring.cluster;

import static dev.weir.spring.cluster.ClusterFaults.MARGIN;
import static dev.weir.spring.cluster.ClusterFaults.awaitConnected;
import static dev.weir.spring.cluster.ClusterFaults.awaitStoreAdmits;
import static dev.weir.spring.cluster.ClusterFaults.guarded;
import static dev.weir.spring.cluster.ClusterFaults.millis;
import static dev.weir.spring.cluster.ClusterFaults.shape;
import static dev.weir.spring.cluster.ClusterFaults.start;
import static dev.weir.spring.cluster.ClusterFaults.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.CircuitState;
import dev.weir.ClusterStatus;
import dev.weir.cluster.FallbackReason;
import dev.weir.spring.cluster.ClusterFaults.Counts;
import dev.weir.spring.cluster.ClusterFaults.Load;
import dev.weir.spring.cluster.ClusterFaults.Window;
import dev.weir.spring.test.RedisSentinels;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Cluster mode through Redis Sentinel ({@code spring.data.redis.sentinel.*}): a master, a replica and
 * three sentinels owned by the test ({@link RedisSentinels}); the master is killed under load.
 * Decisions keep their deadline, fall back while no master answers, and are made by Redis again
 * once the sentinels promoted the replica and Lettuce reconnected to it (it asks the sentinels for
 * the master on each reconnect). No caller sees an exception, and no decision given up on is
 * counted later by the new master. The drill runs per call ({@code window}) and with leases
 * ({@code lease-window}): then Redis counts the permits of the leases it granted, and the master is
 * killed while the instance holds one.
 */
@Timeout(180)
class ClusterSentinelFailoverTests {

  private static final Duration TIMEOUT = Duration.ofMillis(100);
  private static final Duration FAILOVER = Duration.ofSeconds(40);

  private RedisSentinels sentinels;

  @BeforeEach
  void startSentinels() {
    sentinels = RedisSentinels.start();
  }

  @AfterEach
  void stopSentinels() {
    if (sentinels != null) {
      sentinels.close();
    }
  }

  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "lease-window"})
  void theMasterKilledUnderLoadFallsBackWithinTheDeadlineAndRedisDecidesAgainAfterThePromotion(String shape)
      throws Exception {
    // A count that never refuses, so that what Redis counted can be compared with what it admitted.
    boolean leases = shape.startsWith("lease");
    ConfigurableApplicationContext context = start(sentinels.master().port(), shape(shape,
        "spring.data.redis.sentinel.master", RedisSentinels.MASTER_NAME,
        "spring.data.redis.sentinel.nodes", sentinels.nodes(),
        "weir.cluster.timeout", TIMEOUT.toMillis() + "ms", "faults.ledger", "true",
        "weir.flow[0].count", "100000000", "weir.flow[0].interval", "60s"));
    Load load = null;
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      ClusterFaultApplication.Ledger ledger = context.getBean(ClusterFaultApplication.Ledger.class);
      awaitConnected(context);
      awaitStoreAdmits(status, guarded::call);
      Counts initial = Counts.of(status);
      load = new Load("failover", 4, TIMEOUT, guarded::call);
      ClusterFaults.sleep(300);
      String key = "faults:{" + ClusterFaultApplication.RESOURCE + "}:" + (leases ? "lease" : "flow") + ":all:60000ms";

      long killed = load.now();
      sentinels.master().kill();
      Counts atKill = Counts.of(status);
      // With leases, the lease held at the kill stays spendable to its end (600 ms, a hundredth of the
      // interval: the old master counted it); the promotion takes longer, so that what is admitted
      // after it was granted by the new master.
      ClusterFaults.afterLastAnswers(shape, Duration.ofSeconds(60));
      await("the sentinels promote the replica", () -> sentinels.masterPort() == sentinels.replica().port());
      long promoted = load.now();
      Counts atPromotion = Counts.of(status);
      await("Redis admits again after the promotion", () -> status.admitted() > atPromotion.admitted()
          && status.breakerState() == CircuitState.CLOSED);
      long recovered = load.now();
      ClusterFaults.sleep(300);
      load.stop();
      await("the decisions in flight settle", () -> status.inFlight() == 0);
      Counts end = Counts.of(status);
      if (leases) {
        // The leases held when the load stopped end on their own and the engine's timer gives back
        // what they did not spend; a PING on the same connection, answered after the give-backs,
        // tells that the new master applied them.
        ClusterFaults.afterLastAnswers(shape, Duration.ofSeconds(60));
        status.ping().get(FAILOVER.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      }

      // Everything the new master counted: what it had from the old one when promoted, plus its own.
      long counted = hashSum(sentinels.replica().call("HGETALL", key));
      Window all = load.all();
      Window down = load.window(killed, promoted);
      Counts run = end.minus(initial);
      Counts outage = atPromotion.minus(atKill);
      Counts after = end.minus(atPromotion);
      long ownWait = load.longestOwnWait();
      System.out.printf("[failover] all{%s} down{%s}%n  outage{%s} after promotion{%s}; promoted %d ms after the"
              + " kill, Redis decided again %d ms later; the new master counted %d, Redis admitted %d in all;"
              + " longest own wait %d ms; leases: %d requests, %d permits leased, %d returned; Redis answered {%s}%n",
          all, down, outage, after, millis(promoted - killed), millis(recovered - promoted), counted,
          end.admitted(), millis(ownWait), status.leaseRequests(), status.leasedPermits(), status.returnedPermits(), ledger);

      assertThat(status.description()).isEqualTo("redis sentinel master weir via " + sentinels.nodes());
      assertThat(load.unexpected()).as("what callers saw besides FlowException").isEmpty();
      assertThat(ownWait).as("the longest a call waited by its own doing, ns (the longest call took %d ms)",
          millis(all.maxNanos())).isLessThanOrEqualTo(TIMEOUT.plus(MARGIN).toNanos());
      assertThat(run.decisions()).as("one decision per call").isEqualTo(all.attempts());
      assertThat(outage.fallbacks()).as("decided by the fallback while no master answered").isPositive();
      assertThat(outage.fallbacks(FallbackReason.BREAKER_OPEN)).isPositive();
      assertThat(after.admitted()).isPositive();
      // Not replayed: each decision counted at most once. The new master counted at most what Redis
      // admitted (some of the old master's last writes may not have reached it), plus the decisions
      // sent whose answer never came: given up on at their deadline, or failed with the connection.
      // Such a decision may have run on the old master and been replicated just before the kill
      // (its answer lost with the master), or have run late on the new one. A decision given up
      // on and sent again later would be counted twice.
      if (!leases) {
        assertThat(counted).as("counted by the new master").isLessThanOrEqualTo(end.admitted()
            + run.fallbacks(FallbackReason.TIMEOUT) + run.fallbacks(FallbackReason.ERROR));
      }
      // With leases Redis counts the permits of the leases it granted (their unspent permits were
      // given back above), not calls; and a lease round trip whose answer never came may have
      // counted its whole block, stranded, never spent (on the safe side: docs/cluster-leases.md,
      // Faults), not one call. So the bound is by what Redis answered, for both shapes: every
      // permit it admitted or leased, less what give-backs took out, plus what each request left
      // unanswered asked for. A request sent again after it was given up on would count twice and
      // exceed it by its block (or its call).
      assertThat(counted).as("counted by the new master, by what Redis answered: %s", ledger)
          .isLessThanOrEqualTo(ledger.mostCounted());
      assertThat(status.leaseRequests() > 0).as("the rule leased").isEqualTo(leases);
      if (leases) {
        // Nothing spent beyond the leases: the calls admitted from them are at most what was leased
        // and not given back (a lease that ended while the breaker was open keeps its rest counted
        // in Redis, and here too).
        assertThat(end.admitted() - ledger.admittedPerCall.sum()).as("admitted from leases")
            .isLessThanOrEqualTo(status.leasedPermits() - status.returnedPermits());
      }
      assertThat(counted).isGreaterThanOrEqualTo(after.admitted());
    } finally {
      if (load != null) {
        load.close();
      }
      context.close();
    }
  }

  private static void await(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + FAILOVER.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + FAILOVER.toSeconds() + " s waiting until " + what);
      }
      ClusterFaults.sleep(20); // real processes: sentinels voting, Lettuce reconnecting
    }
  }

  /** The sum of a window's counts: its hash's fields but {@code t}, the last decision's time of a lease window. */
  private static long hashSum(Object reply) {
    long sum = 0;
    List<?> fields = (List<?>) reply;
    for (int i = 0; i < fields.size(); i += 2) {
      if (!"t".equals(fields.get(i))) {
        sum += Long.parseLong((String) fields.get(i + 1));
      }
    }
    return sum;
  }
}
