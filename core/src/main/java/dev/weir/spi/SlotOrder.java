package dev.weir.spi;

/**
 * The orders of the built-in slots; a custom slot picks a number between two of them. Lower runs
 * first on entry and last on exit.
 */
public final class SlotOrder {

  /** Selects the statistics nodes of the call: resource, (context, resource), (resource, origin). */
  public static final int NODE_SELECTION = -10_000;
  /** Records passes and blocks of everything that follows, and completions on exit. */
  public static final int STATISTICS = -7_000;
  /** Origin allow and deny lists. */
  public static final int AUTHORITY = -6_000;
  /** Whole-application protection of inbound traffic. */
  public static final int SYSTEM = -5_000;
  /** Hot-parameter limits. */
  public static final int PARAM_FLOW = -3_000;
  /** Rate and concurrency limits. */
  public static final int FLOW = -2_000;
  /** Circuit breakers. */
  public static final int DEGRADE = -1_000;

  private SlotOrder() {
  }
}
