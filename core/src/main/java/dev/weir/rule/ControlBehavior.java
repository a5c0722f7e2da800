package dev.weir.rule;

/** What a {@link FlowGrade#QPS} flow rule does with a call that exceeds the rate. */
public enum ControlBehavior {
  /** Refuse it at once. */
  REJECT,
  /**
   * Refuse it at once, with a rate that starts at {@code count / cold-factor} after an idle period
   * and rises to {@code count} over {@code warm-up-period}.
   */
  WARM_UP,
  /**
   * Space admissions evenly at {@code interval / count}; a call waits up to
   * {@code max-queueing-time} for its slot, else it is refused.
   */
  QUEUE,
  /** {@link #WARM_UP}'s rising rate, with {@link #QUEUE}'s waiting instead of refusing. */
  WARM_UP_QUEUE
}
