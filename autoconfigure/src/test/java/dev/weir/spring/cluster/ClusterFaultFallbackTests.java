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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.ClusterStatus;
import dev.weir.Entry;
import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.cluster.FallbackReason;
import dev.weir.spring.cluster.ClusterFaults.CallTimer;
import dev.weir.spring.cluster.ClusterFaults.Counts;
import dev.weir.spring.test.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The {@code allow} and {@code deny} fallbacks while Redis is killed. Each rule's count is chosen so
 * that neither Redis nor a local limiter could give the outcome asserted: only the fallback can.
 * Each drill runs per call ({@code window}) and with leases ({@code lease-window}, see
 * {@link ClusterFaults#shape}).
 */
class ClusterFaultFallbackTests extends WithRedisServer {

  private static final Duration TIMEOUT = Duration.ofMillis(50);
  private static final int CALLS = 200;


  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "lease-window"})
  void allowLetsEveryCallThroughWhileRedisIsDown(String shape) {
    ConfigurableApplicationContext context = start(redis.port(), shape(shape,
        "weir.cluster.fallback", "allow", "weir.flow[0].count", "1", "weir.flow[0].interval", "10s"));
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      awaitConnected(context);
      awaitStoreAdmits(status, guarded::call);
      assertThatThrownBy(guarded::call).as("Redis enforces the count of 1").isInstanceOf(FlowException.class);

      redis.kill();
      // With leases, the refusal Redis answered last is kept here for 100 ms: until then a call is
      // refused by Redis' answer, not let through by the fallback.
      ClusterFaults.afterLastAnswers(shape, Duration.ofSeconds(10));
      Counts before = Counts.of(status);
      int passed = 0;
      try (CallTimer timer = new CallTimer()) {
        for (int i = 0; i < CALLS; i++) {
          timer.time(guarded::call); // anything thrown fails the test
          passed++;
          LockSupport.parkNanos(1_000_000);
        }
        assertThat(passed).isEqualTo(CALLS);
        assertEveryCallFellBackInTime("allow", Counts.of(status).minus(before), timer);
      }
    } finally {
      context.close();
    }
  }

  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "lease-window"})
  void denyRefusesEveryCallWithAFlowExceptionWhileRedisIsDown(String shape) {
    ConfigurableApplicationContext context = start(redis.port(), shape(shape,
        "weir.cluster.fallback", "deny", "weir.flow[0].count", "100000", "weir.flow[0].interval", "10s"));
    try {
      Weir weir = context.getBean(Weir.class);
      ClusterStatus status = status(context);
      awaitConnected(context);
      awaitStoreAdmits(status, () -> weir.entry(ClusterFaultApplication.RESOURCE).close());

      redis.kill();
      // With leases, the lease held at the kill stays spendable to its end (100 ms, a hundredth of
      // the interval): Redis counted it. Only then does the fallback decide.
      ClusterFaults.afterLastAnswers(shape, Duration.ofSeconds(10));
      Counts before = Counts.of(status);
      List<FlowException> refusals = new ArrayList<>();
      try (CallTimer timer = new CallTimer()) {
        for (int i = 0; i < CALLS; i++) {
          int call = i;
          timer.time(() -> {
            try (Entry entry = weir.entry(ClusterFaultApplication.RESOURCE)) {
              throw new AssertionError("call " + call + " passed while Redis is down and the fallback is deny");
            } catch (FlowException e) {
              refusals.add(e);
            }
          });
          LockSupport.parkNanos(1_000_000);
        }
        assertThat(refusals).hasSize(CALLS).allSatisfy(e -> {
          assertThat(e.resource()).isEqualTo(ClusterFaultApplication.RESOURCE);
          assertThat(e.rule()).isNotNull().satisfies(rule -> assertThat(rule.clusterMode()).isTrue());
        });
        assertEveryCallFellBackInTime("deny", Counts.of(status).minus(before), timer);
      }
    } finally {
      context.close();
    }
  }

  /**
   * While Redis was down: no call waited by its own doing past the deadline (and a margin), and
   * none was decided by Redis.
   */
  private static void assertEveryCallFellBackInTime(String fallback, Counts down, CallTimer timer) {
    long ownWait = timer.longestOwnWait();
    System.out.printf("[%s] %d calls, longest %d ms (own wait %d ms), {%s}%n", fallback, CALLS,
        millis(timer.longestWall()), millis(ownWait), down);
    assertThat(ownWait).as("the longest a call waited by its own doing, ns").isLessThanOrEqualTo(
        TIMEOUT.plus(MARGIN).toNanos());
    assertThat(down.fallbacks()).as("every call fell back: " + down).isEqualTo(CALLS);
    assertThat(down.admitted() + down.blocked()).isZero();
    assertThat(down.fallbacks(FallbackReason.BREAKER_OPEN)).isPositive();
  }
}
