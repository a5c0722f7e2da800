package dev.weir.internal.limit;

import dev.weir.internal.time.EngineLog;
import dev.weir.rule.Rule;
import java.lang.System.Logger.Level;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The would-be refusals of one rule in shadow mode: each one is counted on the resource of the call
 * ({@code ResourceStatistics.totalShadowBlocked}, by the rule's kind) and here, and reported in the
 * log at most once per second of engine time, with the count since the previous report. Exists only
 * for a rule in shadow mode: a rule in force for real has none, and its slot decides by the absence
 * of this object, read once per rule (see {@link FlowSlot}).
 *
 * <h2>The report</h2>
 * The log line is written by the refusal that finds at least {@link #REPORT_INTERVAL_NANOS} of engine
 * time since the previous line (the first refusal of the rule writes one at once): one CAS on the
 * time of the last line picks that refusal among concurrent ones. The count it reports is the
 * difference between the running total and the total the previous line reported, taken under this
 * object's lock, so two lines never report the same refusal and none is lost: a refusal that
 * arrives while a line is written is in that line or in the next. A line is only written when a
 * refusal comes, so the refusals of the last second before traffic stops are reported with the next
 * one (the meter has them at once).
 */
public final class ShadowRefusals {

  /** Least engine time between two log lines of one rule. */
  static final long REPORT_INTERVAL_NANOS = 1_000_000_000L;

  private static final System.Logger LOG = System.getLogger(EngineLog.NAME);
  private static final long NEVER = Long.MIN_VALUE;

  private final Rule rule;
  private final String subject;
  /** Permits this rule would have refused, ever. */
  private final LongAdder refused = new LongAdder();
  /** Engine time of the last log line; {@link #NEVER} before the first. */
  private final AtomicLong lastReport = new AtomicLong(NEVER);
  /** The value of {@link #refused} that the last line reported up to; guarded by this. */
  private long reported;

  /** The refusals of {@code rule}; {@code subject} names what it guards in the log (a resource, inbound calls). */
  public ShadowRefusals(Rule rule, String subject) {
    this.rule = rule;
    this.subject = subject;
  }

  /** A rule of {@code rule}'s resource in shadow mode, or null when it is in force for real. */
  public static @Nullable ShadowRefusals of(dev.weir.rule.ResourceRule rule) {
    return rule.shadow() ? new ShadowRefusals(rule, "'" + rule.resource() + "'") : null;
  }

  /**
   * A call of {@code permits} goes on although this rule would have refused it: count it on its
   * resource's statistics, and report when due ({@code now}: the call's reading).
   */
  public void refused(ShadowCounts counts, int permits, long now) {
    counts.onShadowBlock(permits, rule.kind());
    refused.add(permits);
    long last = lastReport.get();
    if ((last == NEVER || now - last >= REPORT_INTERVAL_NANOS) && lastReport.compareAndSet(last, now)) {
      report();
    }
  }

  private void report() {
    long count;
    synchronized (this) {
      long total = refused.sum();
      count = total - reported;
      reported = total;
    }
    if (count > 0 && LOG.isLoggable(Level.INFO)) {
      LOG.log(Level.INFO, "Shadow " + rule.kind().tag() + " rule of " + subject + " would have refused " + count
          + (count == 1 ? " permit" : " permits") + " since its last report; they went on: " + rule);
    }
  }

  /** Permits this rule would have refused, ever; for tests. */
  long total() {
    return refused.sum();
  }

  @Override
  public String toString() {
    return "ShadowRefusals{" + rule + '}';
  }
}
