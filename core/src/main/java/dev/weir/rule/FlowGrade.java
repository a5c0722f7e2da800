package dev.weir.rule;

/** What a flow rule counts. */
public enum FlowGrade {
  /** Admissions per {@link FlowRule#interval()}. */
  QPS,
  /** Calls inside at the same time (a concurrency limit). */
  THREADS,
  /**
   * Calls inside at the same time, under a limit that follows the resource's measured latency and
   * throughput, within {@link FlowRule#minLimit()} and {@link FlowRule#maxLimit()}; when it binds,
   * lower {@link dev.weir.Criticality criticalities} are shed first. Flow rules only.
   */
  ADAPTIVE
}
