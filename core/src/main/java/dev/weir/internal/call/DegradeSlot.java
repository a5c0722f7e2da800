package dev.weir.internal.call;

import dev.weir.internal.limit.CircuitBreaker;
import dev.weir.internal.limit.FlowLimiter;
import dev.weir.internal.limit.ShadowRefusals;
import dev.weir.internal.time.EngineClock;
import dev.weir.rule.RuleKind;
import dev.weir.spi.SlotOrder;

/**
 * Applies the resource's circuit breakers. A call passes only if every breaker lets it; when one
 * refuses, the probes that earlier breakers admitted for this call are handed back (those breakers
 * reopen). Completions are reported to every breaker the call went through.
 *
 * <p>A breaker names its probe by the call's start reading ({@code entry.startNanos}, the reading
 * its {@code tryPass} decided), so the same reading goes back with the completion or the refusal:
 * a probe that timed out and completes later is then told apart from the breaker's newer probe.
 * Nothing after this slot changes {@code startNanos}.
 *
 * <p>A call {@linkplain Entry#cancel() cancelled} by its caller, with no error recorded, has no
 * outcome: it goes to {@link CircuitBreaker#onCancelled}, which counts only what the cancel proves.
 *
 * <p>A breaker in shadow mode decides as any other (it opens, probes and closes on the calls it
 * judges), but where it would refuse (open, or half-open with its probe in flight) the call goes
 * on, counted as a shadow refusal, and the call's completion is not reported to that breaker: a
 * breaker in force would never have seen the call, so the shadow one does not judge it either, and
 * both move through the same states on the same traffic.
 */
public final class DegradeSlot extends Slot {

  private final EngineClock clock;

  public DegradeSlot(EngineClock clock) {
    super(SlotOrder.DEGRADE, ENTRY | BLOCKED | EXIT);
    this.clock = clock;
  }

  @Override
  boolean neededFor(ResourceRules rules) {
    return rules.breakers.length > 0;
  }

  @Override
  boolean entry(Call call) {
    CircuitBreaker[] breakers = call.rules.breakers;
    call.breakers = breakers;
    for (CircuitBreaker breaker : breakers) {
      long verdict = breaker.tryPass(call.startNanos);
      if (verdict < 0) {
        ShadowRefusals shadow = breaker.shadow;
        if (shadow == null) {
          call.refuseProbes(call.startNanos);
          return call.refuse(RuleKind.DEGRADE, breaker.rule, FlowLimiter.retryAfterNanos(verdict));
        }
        call.goesOnInShadow(shadow);
        call.passedOpen(breaker);
        continue;
      }
      if (verdict == CircuitBreaker.PROBE) {
        call.addProbe(breaker);
      }
    }
    return true;
  }

  @Override
  void blocked(Call call) {
    call.refuseProbes(clock.read());
  }

  @Override
  void exit(Call call) {
    boolean failed = call.error != null;
    boolean unknown = call.cancelled && !failed; // a cancel after a recorded error is a failure
    for (CircuitBreaker breaker : call.breakers) {
      if (call.passedOpenCount == 0 || call.completesFor(breaker)) {
        if (unknown) {
          breaker.onCancelled(call.startNanos, call.endNanos, call.isProbe(breaker));
        } else {
          breaker.onComplete(call.startNanos, call.endNanos, failed, call.isProbe(breaker));
        }
      }
    }
  }
}
