package dev.weir;

/**
 * How much a call matters when its resource is overloaded, highest first. An {@code adaptive} flow
 * rule whose limit binds sheds the lowest criticality first: at any one limit, a call is never
 * refused while a call of a lower criticality would be admitted (docs/adaptive-limits.md,
 * "Criticality"). Rules of other grades ignore it.
 *
 * <p>A call's criticality comes from the context it runs in
 * ({@link Weir#enterContext(String, String, Criticality)}, or a {@code Criticality} in the Reactor
 * context), else from the entry call (the annotation's {@code criticality}), else {@link #CRITICAL}.
 * In Spring, a request's {@code weir.web.criticality-header} or a gRPC call's
 * {@code weir.grpc.criticality-metadata} can only lower it, never raise it (docs/criticality.md).
 */
public enum Criticality {
  /** Must not be shed while anything else is admitted: what the application exists to do. */
  CRITICAL_PLUS,
  /** The default: user-facing work, shed only after every sheddable call. */
  CRITICAL,
  /** Work that can fail without harm but is worth doing: prefetches, retries with a fallback. */
  SHEDDABLE_PLUS,
  /** Shed first: batch jobs, analytics, anything that can be retried much later. */
  SHEDDABLE;

  private static final Criticality[] ALL = values();

  /**
   * The rank of this criticality among those an adaptive limit tells apart, 0 for
   * {@link #SHEDDABLE} up to 3 for {@link #CRITICAL_PLUS}: a higher rank is shed later.
   */
  public int rank() {
    return ALL.length - 1 - ordinal();
  }

  /** The criticality of {@code rank} (see {@link #rank()}), clamped into 0..3. */
  public static Criticality ofRank(int rank) {
    return ALL[ALL.length - 1 - Math.max(0, Math.min(ALL.length - 1, rank))];
  }
}
