package dev.weir.internal.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.FallbackReason;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link FallbackLog} on driven readings: a line per spell, never per call, whatever the pattern of
 * failures and answers; readings out of order start and end nothing.
 */
class FallbackLogTest {

  private static final long OPEN = TimeUnit.SECONDS.toNanos(1);
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  private final List<String> lines = new ArrayList<>();
  private final FallbackLog log = new FallbackLog(new Recorder(lines), () -> "redis test:1", ClusterFallback.SHARE,
      OPEN, reason -> "IOException: refused", 0);

  @Test
  void aStoreThatFailsEveryOtherCallIsOneSpellNotALinePerCall() {
    for (int i = 1; i <= 10_000; i++) {
      long now = i * MS; // ten seconds of calls, one per millisecond
      if (i % 2 == 0) {
        log.fellBack(FallbackReason.TIMEOUT, now);
      } else {
        log.answered(now, false);
      }
    }
    assertThat(lines).hasSize(1);
    assertThat(lines.get(0)).startsWith("WARNING Cluster store redis test:1 is not deciding (IOException: refused)")
        .contains("fall back to share (each instance counts count / live instances alone)");
  }

  @Test
  void theSpellEndsAtTheProbeThatClosesTheBreakerOrAfterAnOpenPeriodOfAnswers() {
    log.fellBack(FallbackReason.ERROR, 10 * MS);
    log.fellBack(FallbackReason.BREAKER_OPEN, 20 * MS);
    log.answered(30 * MS, false); // an answer within the open period after a fallback: still falling
    assertThat(lines).hasSize(1);
    log.answered(40 * MS, true); // the probe closed the breaker
    assertThat(lines).hasSize(2);
    assertThat(lines.get(1)).startsWith("INFO Cluster store redis test:1 answers again")
        .contains("fell back to share for 30 ms");

    log.fellBack(FallbackReason.BREAKER_OPEN, 35 * MS); // decided before the probe answered: that spell
    assertThat(lines).hasSize(2);
    assertThat(log.falling()).isFalse();

    log.fellBack(FallbackReason.SATURATED, 50 * MS); // a new spell, never having opened the breaker
    log.answered(50 * MS + OPEN - 1, false);
    assertThat(lines).hasSize(3);
    log.answered(40 * MS, false); // an answer to a call older than the last fallback
    log.answered(50 * MS + OPEN, false); // a whole open period without a fallback
    assertThat(lines).hasSize(4);
    assertThat(lines.get(3)).contains("answers again").contains("for 1000 ms");
  }

  /** A {@link System.Logger} that keeps each line as "LEVEL message". */
  private record Recorder(List<String> lines) implements System.Logger {

    @Override
    public String getName() {
      return "test";
    }

    @Override
    public boolean isLoggable(Level level) {
      return true;
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String message, Throwable thrown) {
      lines.add(level + " " + message);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
      lines.add(level + " " + MessageFormat.format(format, params));
    }
  }
}
