package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.ClusterStatus;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Weir;
import dev.weir.cluster.ClusterFallback;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code Entry.settle} of calls spent from leases ({@code weir.cluster.lease}): two instances, two
 * threads each, against a real {@code redis-server}, on the real clock. Every call takes an
 * estimate of 1 and costs 3: the debts are taken from the leases in hand, with no command of their
 * own, so the fleet spends about {@code count} in any second, not three times it, by the engines'
 * own readings (the lease bound of docs/cluster-leases.md plus, per thread, a call's excess unsettled
 * and its debt not yet paid).
 */
@Timeout(120)
class ClusterLeaseSettleTests extends WithSharedRedisServer {

  private static final AtomicInteger PREFIXES = new AtomicInteger();
  private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  private final LeasedInstances fleet = new LeasedInstances();

  @AfterEach
  void closeFleet() {
    fleet.close();
  }

  /** One admitted call: the reading before it was entered, and what it cost. */
  record Spent(long reading, long cost) {
  }

  @Test
  void debtsAreTakenFromTheLeasesSoTheFleetSpendsTheCountNotThreeTimesIt() throws Exception {
    int count = 3000;
    int cost = 3;
    String prefix = "leasesettle" + PREFIXES.incrementAndGet();
    FlowRule rule = FlowRule.builder("ai").count(count).clusterMode(true).build();
    List<Weir> engines = List.of(
        fleet.start(redis, prefix, LeasedInstances.options(ClusterFallback.DENY, Duration.ofSeconds(1)), RuleSet.of(rule)),
        fleet.start(redis, prefix, LeasedInstances.options(ClusterFallback.DENY, Duration.ofSeconds(1)), RuleSet.of(rule)));
    int threads = 2;
    List<Spent> spent = Collections.synchronizedList(new ArrayList<>());
    List<Throwable> thrown = Collections.synchronizedList(new ArrayList<>());
    CountDownLatch start = new CountDownLatch(1);
    long end = System.nanoTime() + 3 * SECOND + SECOND; // the latch is released within the extra second
    List<Thread> running = new ArrayList<>();
    for (Weir engine : engines) {
      for (int t = 0; t < threads; t++) {
        Thread thread = new Thread(() -> {
          try {
            start.await();
            while (System.nanoTime() - end < 0) {
              long reading = System.nanoTime();
              Entry entry = engine.tryEntry("ai", EntryType.OUT, 1);
              if (entry != null) {
                entry.settle(cost);
                entry.close();
                spent.add(new Spent(reading, cost));
              }
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } catch (RuntimeException | Error e) {
            thrown.add(e);
          }
        });
        thread.start();
        running.add(thread);
      }
    }
    start.countDown();
    for (Thread thread : running) {
      thread.join(60_000);
      assertThat(thread.isAlive()).isFalse();
    }
    assertThat(thrown).isEmpty();

    List<Spent> sorted = new ArrayList<>(spent);
    sorted.sort((a, b) -> Long.compare(a.reading, b.reading));
    long most = 0;
    long sum = 0;
    int first = 0;
    for (Spent call : sorted) {
      sum += call.cost;
      while (call.reading - sorted.get(first).reading >= SECOND) {
        sum -= sorted.get(first).cost;
        first++;
      }
      most = Math.max(most, sum);
    }
    int callers = engines.size() * threads;
    // The lease bound (count x 1.01 + a call per thread), plus per thread one call's excess in flight
    // and one call's debt not yet paid by a lease.
    long bound = (long) Math.floor(count * 1.01) + callers * (1 + 2L * (cost - 1));
    long leaseRequests = 0;
    long settled = 0;
    for (Weir engine : engines) {
      ClusterStatus status = LeasedInstances.status(engine);
      assertThat(status.fallbacks()).as("decisions that fell back").isZero();
      leaseRequests += status.leaseRequests();
      settled += status.settled() + status.unsettled();
    }
    System.out.printf("[lease-settle] calls %d, most cost in a 1 s span %d (bound %d), lease round trips %d, "
        + "settlements sent %d%n", sorted.size(), most, bound, leaseRequests, settled);
    assertThat(sorted.size()).as("calls admitted over 3 s: the debts slowed them to a third").isGreaterThan(count / 3);
    assertThat(most).isLessThanOrEqualTo(bound);
    assertThat(leaseRequests).as("the calls were leased").isPositive();
    assertThat(settled).as("settlements sent to Redis: the cold start's per-call ones, and what no lease could pay")
        .isLessThan(sorted.size() / 10);
  }
}
