package dev.weir.rule;

/** What a flow rule counts. */
public enum FlowGrade {
  /** Admissions per {@link FlowRule#interval()}. */
  QPS,
  /** Calls inside at the same time (a concurrency limit). */
  THREADS
}
