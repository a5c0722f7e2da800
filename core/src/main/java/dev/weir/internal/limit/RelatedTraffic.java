package dev.weir.internal.limit;

/**
 * What {@code strategy: related} reads of the other resource: its live statistics at a reading.
 * The statistics of a resource provide it; a limiter never reaches the resource's other state.
 */
public interface RelatedTraffic {

  /** The permits that passed in the second ending at {@code now}. */
  long passQps(long now);

  /** The calls inside now. */
  long activeCalls();
}
