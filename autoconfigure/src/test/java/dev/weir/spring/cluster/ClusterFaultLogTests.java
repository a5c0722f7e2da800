package dev.weir.spring.cluster;

import static dev.weir.spring.cluster.ClusterFaults.await;
import static dev.weir.spring.cluster.ClusterFaults.awaitConnected;
import static dev.weir.spring.cluster.ClusterFaults.awaitStoreAdmits;
import static dev.weir.spring.cluster.ClusterFaults.guarded;
import static dev.weir.spring.cluster.ClusterFaults.shape;
import static dev.weir.spring.cluster.ClusterFaults.start;
import static dev.weir.spring.cluster.ClusterFaults.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.ClusterStatus;
import dev.weir.FlowException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What the log says while Redis is killed and after its restart: one WARN on the engine's logger
 * from the first call that falls back (naming the store, the fallback in force and the error), none
 * more across many calls and several open periods of the breaker, and one INFO once Redis answers
 * again. Per call ({@code window}) and with leases ({@code lease-window}).
 */
@ExtendWith(OutputCaptureExtension.class)
class ClusterFaultLogTests extends WithRedisServer {

  private static final String WARN = "WARN";
  private static final String INFO = "INFO";

  @ParameterizedTest(name = "rules: {0}")
  @ValueSource(strings = {"window", "lease-window"})
  void oneWarnWhileRedisIsDownAndOneInfoWhenItAnswersAgain(String shape, CapturedOutput output) {
    // The default threshold of failures in a row (5): more than the calls a user makes by hand.
    // The level too: a context of another test in this JVM may have set dev.weir to WARN, and
    // Logback keeps a level after that context closed.
    ConfigurableApplicationContext context = start(redis.port(), shape(shape, "weir.cluster.failure-threshold", "5",
        "logging.level.dev.weir", "info"));
    try {
      ClusterFaultApplication.Guarded guarded = guarded(context);
      ClusterStatus status = status(context);
      awaitConnected(context);
      awaitStoreAdmits(status, guarded::call);
      assertThat(engineLines(output, 0, WARN)).as("no WARN while Redis answers").isEmpty();

      redis.kill();
      ClusterFaults.afterLastAnswers(shape, Duration.ofSeconds(1));
      int killedAt = output.getOut().length();
      long fallbacks = ClusterFaults.Counts.of(status).fallbacks();
      await("a call falls back", () -> {
        call(guarded);
        return ClusterFaults.Counts.of(status).fallbacks() > fallbacks;
      });
      List<String> first = engineLines(output, killedAt, WARN);
      assertThat(first).as("the first call that fell back is told at once, before the breaker opens")
          .hasSize(1);
      assertThat(first.get(0)).contains("redis 127.0.0.1:" + redis.port())
          .contains("fall back to local")
          .containsAnyOf("disconnected from Redis", "Connection refused", "no answer within");

      // Many calls over several open periods (200 ms) of the breaker: probes fail, nothing more is said.
      for (int i = 0; i < 600; i++) {
        call(guarded);
        LockSupport.parkNanos(1_000_000);
      }
      assertThat(status.fallbacks(dev.weir.cluster.FallbackReason.BREAKER_OPEN)).as("the breaker opened").isPositive();
      assertThat(engineLines(output, killedAt, WARN)).as("WARN lines while Redis is down").hasSize(1);
      assertThat(engineLines(output, killedAt, INFO)).as("INFO lines while Redis is down").isEmpty();

      redis.restart();
      awaitStoreAdmits(status, guarded::call);
      // The spell ends with the probe that closes the breaker, or once no call has fallen back for
      // an open period; on a loaded machine calls may still miss their deadline for a while after
      // the restart (each a fallback, which keeps the spell on), so call until it is told.
      await("Redis is told to answer again", () -> {
        call(guarded);
        LockSupport.parkNanos(1_000_000);
        return !engineLines(output, killedAt, INFO).isEmpty();
      });
      for (int i = 0; i < 300; i++) {
        call(guarded);
        LockSupport.parkNanos(1_000_000);
      }
      List<String> back = engineLines(output, killedAt, INFO);
      assertThat(back.get(0)).contains("redis 127.0.0.1:" + redis.port()).contains("answers again");
      // One line per transition, never one per call: WARN and INFO alternate, starting with the
      // WARN above. On a quiet machine that is one of each; a loaded one may miss a deadline after
      // the restart, a new spell told by a WARN of its own (and its INFO), still not a line per call.
      List<String> told = output.getOut().substring(killedAt).lines()
          .filter(line -> line.contains("dev.weir.Weir ") && (line.contains(" WARN ") || line.contains(" INFO ")))
          .toList();
      for (int i = 0; i < told.size(); i++) {
        assertThat(told.get(i)).as("line %d of the spells told", i).contains(i % 2 == 0 ? " WARN " : " INFO ");
      }
      assertThat(told.size()).as("lines over 900 calls and more").isBetween(2, 6);
    } finally {
      context.close();
    }
  }

  private static void call(ClusterFaultApplication.Guarded guarded) {
    try {
      guarded.call();
    } catch (FlowException refused) {
      // the local limiter, or Redis, refused: a decision like any other
    }
  }

  /** Lines of the engine's logger ({@code dev.weir.Weir}) at {@code level} written since {@code from}. */
  private static List<String> engineLines(CapturedOutput output, int from, String level) {
    return output.getOut().substring(from).lines()
        .filter(line -> line.contains(" " + level + " ") && line.contains("dev.weir.Weir "))
        .toList();
  }
}
