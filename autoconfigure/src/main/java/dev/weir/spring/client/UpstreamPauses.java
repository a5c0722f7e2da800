package dev.weir.spring.client;

import dev.weir.EntryType;
import dev.weir.FlowException;
import dev.weir.Ticker;
import dev.weir.rule.FlowRule;
import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;
import dev.weir.spi.SlotOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The client resources a server asked to leave alone, each until an instant of the engine's
 * {@link Ticker}: while paused, an outbound call of the resource is refused with a
 * {@link FlowException} whose {@link FlowException#retryAfter() retry-after} is the time left and
 * whose rule is {@link #UPSTREAM_RULE_NAME a rule named "upstream"} that refuses everything (it is
 * in no rule list: it only describes the refusal, so that a handler can tell it from a local limit).
 *
 * <p>The engine enforces a pause through {@link #slot()}, a {@link ProcessorSlot} that the
 * auto-configuration adds to the engine it builds: so a paused resource's refusals are counted as
 * any flow refusal (statistics, {@code weir.calls}, {@code weir.blocks} with {@code rule=flow}), for
 * every caller of the resource. With an engine of the application's own, built without the slot,
 * {@link ClientGuard} refuses paused calls itself, before asking the engine (not counted then).
 *
 * <p>A later pause never shortens an earlier one; the map holds only client route resources (a
 * bounded set, from the configuration), and an expired pause is removed when next read.
 */
public final class UpstreamPauses {

  /** The name of the rule a pause's refusals carry. */
  public static final String UPSTREAM_RULE_NAME = "upstream";

  /** Where the slot runs: after statistics, which then count its refusals, before every rule. */
  static final int SLOT_ORDER = SlotOrder.STATISTICS + 500;

  private final Map<String, Long> until = new ConcurrentHashMap<>();
  private final Map<String, FlowRule> rules = new ConcurrentHashMap<>();
  private volatile @Nullable Ticker ticker;
  private volatile boolean slotInstalled;

  /**
   * Pauses {@code resource} for {@code nanos} from now on {@code ticker} (the engine's), unless it is
   * paused longer already.
   */
  public void pause(String resource, Ticker ticker, long nanos) {
    if (nanos <= 0) {
      return;
    }
    this.ticker = ticker;
    rules.computeIfAbsent(resource, name -> FlowRule.qps(name, 0).withName(UPSTREAM_RULE_NAME));
    long end = ticker.read() + nanos;
    until.merge(resource, end, (old, now) -> now - old > 0 ? now : old);
  }

  /** Returns the refusal of a call of {@code resource} now, or null when it is not paused. */
  public @Nullable FlowException refusal(String resource) {
    if (until.isEmpty()) {
      return null; // the common case, for every outbound call of the engine: no pause at all
    }
    Long end = until.get(resource);
    Ticker clock = ticker;
    if (end == null || clock == null) {
      return null;
    }
    long left = end - clock.read();
    if (left <= 0) {
      until.remove(resource, end);
      return null;
    }
    return new FlowException(resource, rules.get(resource), left);
  }

  /** Returns the slot that makes an engine enforce these pauses; add it to the engine's builder. */
  public ProcessorSlot slot() {
    slotInstalled = true;
    return new PauseSlot(this);
  }

  /** Whether {@link #slot()} was given to an engine's builder. */
  boolean slotInstalled() {
    return slotInstalled;
  }

  /**
   * Refuses outbound calls of paused resources. It is in the chain of every resource (a custom slot
   * is), so it costs every outbound call of the engine a check that no resource is paused, and while
   * one is, a map lookup; inbound calls, a comparison.
   */
  private static final class PauseSlot extends ProcessorSlot {
    private final UpstreamPauses pauses;

    PauseSlot(UpstreamPauses pauses) {
      this.pauses = pauses;
    }

    @Override
    public int order() {
      return SLOT_ORDER;
    }

    @Override
    public @Nullable FlowException entry(Invocation invocation) {
      return invocation.entryType() == EntryType.OUT ? pauses.refusal(invocation.resource()) : null;
    }
  }
}
