package dev.weir.internal.call;

import dev.weir.BlockException;
import dev.weir.Criticality;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.ParamFlowException;
import dev.weir.internal.limit.CircuitBreaker;
import dev.weir.internal.limit.FlowLimiter;
import dev.weir.internal.limit.ShadowRefusals;
import dev.weir.rule.Rule;
import dev.weir.rule.RuleKind;
import dev.weir.spi.Invocation;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * The state of one call on its way through the chain, pooled per thread by {@link CallStack}: the
 * i-th nested call of a thread reuses the i-th frame once it is free. It is also the {@link Entry}
 * the caller holds, so that guarding a call allocates nothing; see {@link Entry} for what that
 * means for closing it once. A detached frame (an asynchronous call's) is made for one call and
 * never reused, so closing it is idempotent for good.
 *
 * <p>A frame is opened by its owner thread only. It may be finished by any thread, exactly once
 * per call: {@link #finish(long, boolean)} CASes the state from this call's OPEN to its CLOSING, so of two
 * closes of the same call one runs the exit and the other returns false, and a close of an older
 * call expects an older generation and fails without touching the state.
 */
public final class Call extends Entry implements Invocation {

  /**
   * The phase of the current call, in the low two bits of {@link #state}; the bits above count the
   * calls this frame has carried (its generation), so one CAS checks both "this call" and "open".
   */
  private static final long FREE = 0;
  private static final long OPEN = 1;
  private static final long CLOSING = 2;
  /** {@link Entry#settle} runs: a close waits for it to end (a few CASes), a second settle throws. */
  private static final long SETTLING = 3;
  private static final long PHASE = 3;
  private static final long ONE_CALL = 4;

  private static final Object[] NO_ARGS = new Object[0];
  private static final CircuitBreaker[] NO_BREAKERS = new CircuitBreaker[0];
  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(Call.class, "state", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The name of the context of calls made outside any context; {@code Weir.DEFAULT_CONTEXT}. */
  public static final String DEFAULT_CONTEXT = "weir_default_context";

  /** The {@link #depth} of a frame of an asynchronous call, which is on no stack. */
  static final int DETACHED = -1;

  final CallStack stack;
  /** Generation and phase; see {@link #PHASE}. Written by the owner to open, CASed by closers. */
  private volatile long state;
  /** Position on the owner's stack, or {@link #DETACHED}. */
  int depth;

  String resource = "";
  /** Null when the resource is beyond the engine's bound and the call passes unchecked. */
  ResourceNode node;
  EntryType entryType = EntryType.OUT;
  int acquireCount;
  Object[] args = NO_ARGS;
  String contextName = DEFAULT_CONTEXT;
  String origin = "";
  /** Set by the stack right after {@link #open}: the context's, else the one the caller passed. */
  Criticality criticality = Criticality.CRITICAL;
  long startNanos;
  long endNanos;
  /** The rules this call is checked against, read once when it started. */
  ResourceRules rules = ResourceRules.NONE;
  @Nullable Throwable error;
  /**
   * The call was {@linkplain Entry#cancel() cancelled}: its outcome is unknown. Written only by the
   * thread whose CAS finishes the call, before the exit, so the exit reads the cancel that won.
   */
  boolean cancelled;
  /** The call was settled ({@link #settle}); written only under {@link #SETTLING}. */
  private boolean settled;

  /*
   * The permits a call holds, in the order taken: the first in fields of the frame (most calls meet
   * one flow rule), the others in arrays allocated on first use; likewise the probes. A pooled frame
   * keeps its arrays for later calls, and a frame that lives for one call only (an async entry, a
   * virtual thread's) allocates none unless its rules hold more than one permit.
   */
  private @Nullable FlowLimiter firstHeld;
  private long firstHeldToken;
  private FlowLimiter @Nullable [] moreHeld;
  private long @Nullable [] moreHeldTokens;
  /** How many permits are held: {@link #firstHeld}, then {@code heldCount - 1} in the arrays. */
  int heldCount;

  /*
   * Why the call was refused, when a slot refused it: recorded here rather than thrown or returned
   * as an exception, so that a refusal through Weir.tryEntry allocates nothing. The exception is
   * made from these fields only when someone needs it: Weir.entry, to throw it, or a custom slot's
   * blocked(). A custom slot that refuses gives its own exception, kept as it is.
   */
  private @Nullable RuleKind refusedKind;
  private @Nullable Rule refusedBy;
  private long refusedRetryAfterNanos;
  /** The refusal is a hot-parameter rule's of a call without a key ({@code null-key: deny}). */
  private boolean refusedMissingKey;
  private @Nullable BlockException refusal;

  CircuitBreaker[] breakers = NO_BREAKERS;
  CircuitBreaker @Nullable [] probes;
  int probeCount;
  /** Breakers in shadow mode that would have refused this call: its completion is not theirs. */
  CircuitBreaker[] passedOpen = NO_BREAKERS;
  int passedOpenCount;

  Call(CallStack stack) {
    this.stack = stack;
  }

  void open(String resource, @Nullable ResourceNode node, EntryType type, int acquireCount, Object @Nullable [] args,
      long now) {
    this.resource = resource;
    this.node = node;
    this.entryType = type;
    this.acquireCount = acquireCount;
    this.args = args == null ? NO_ARGS : args;
    this.contextName = stack.contextName;
    this.origin = stack.origin;
    this.startNanos = now;
    this.settled = false;
    // Only the owner opens, and only a FREE frame: nobody else writes the state meanwhile.
    STATE.setRelease(this, (state & ~PHASE) + ONE_CALL | OPEN);
  }

  /** The generation of the current call of this frame: how many calls it has carried, as its state holds it. */
  long generation() {
    return state & ~PHASE;
  }

  /** True while {@code generation} of this frame is open. */
  boolean isOpen(long generation) {
    long s = state;
    return s == (generation | OPEN) || s == (generation | SETTLING);
  }

  void hold(FlowLimiter limiter, long token) {
    if (heldCount == 0) {
      firstHeld = limiter;
      firstHeldToken = token;
      heldCount = 1;
      return;
    }
    int at = heldCount - 1;
    if (moreHeld == null || moreHeldTokens == null) {
      moreHeld = new FlowLimiter[2];
      moreHeldTokens = new long[2];
    } else if (at == moreHeld.length) {
      moreHeld = java.util.Arrays.copyOf(moreHeld, at * 2);
      moreHeldTokens = java.util.Arrays.copyOf(moreHeldTokens, at * 2);
    }
    moreHeld[at] = limiter;
    moreHeldTokens[at] = token;
    heldCount++;
  }

  /** The limiter of the i-th permit held, and forgets it there. */
  private FlowLimiter takeHeld(int i) { // i < heldCount: hold stored it
    FlowLimiter limiter;
    if (i == 0) {
      limiter = firstHeld;
      firstHeld = null;
    } else {
      limiter = moreHeld[i - 1];
      moreHeld[i - 1] = null;
    }
    return limiter;
  }

  private long heldToken(int i) {
    return i == 0 ? firstHeldToken : moreHeldTokens[i - 1];
  }

  /**
   * Gives back the permits held since {@code mark} (a {@link #heldCount} read before): a rule in
   * shadow mode that took them for some elements of the call's argument would refuse the call.
   */
  void refundHeldFrom(int mark) {
    for (int i = heldCount - 1; i >= mark; i--) {
      long token = heldToken(i);
      takeHeld(i).refund(acquireCount, token);
    }
    heldCount = mark;
  }

  /** Gives back every permit held: the call was refused after some rules admitted it. */
  void refundHeld() {
    refundHeldFrom(0);
  }

  /** Releases every permit held: the call completed (its outcome, times and tokens go with it). */
  void releaseHeld() {
    // An error recorded before a cancel decides: the call failed (Entry.cancel), as the statistics
    // and the breakers count it. Only a cancel with no error recorded has no outcome.
    int outcome = error != null ? FlowLimiter.FAILED : cancelled ? FlowLimiter.CANCELLED : FlowLimiter.SUCCEEDED;
    for (int i = 0; i < heldCount; i++) {
      long token = heldToken(i);
      takeHeld(i).complete(acquireCount, token, startNanos, endNanos, outcome);
    }
    heldCount = 0;
  }

  void addProbe(CircuitBreaker breaker) {
    if (probes == null) {
      probes = new CircuitBreaker[1];
    } else if (probeCount == probes.length) {
      probes = java.util.Arrays.copyOf(probes, probeCount * 2);
    }
    probes[probeCount++] = breaker;
  }

  /**
   * {@code breaker}, in shadow mode, would have refused this call: the call goes on, and its
   * completion will not be told to the breaker, which would never have seen it in force.
   */
  void passedOpen(CircuitBreaker breaker) {
    if (passedOpenCount == passedOpen.length) {
      passedOpen = java.util.Arrays.copyOf(passedOpen, Math.max(1, passedOpenCount * 2));
    }
    passedOpen[passedOpenCount++] = breaker;
  }

  /** Whether the completion of this call is for {@code breaker} to judge: it did not pass it open. */
  boolean completesFor(CircuitBreaker breaker) {
    for (int i = 0; i < passedOpenCount; i++) {
      if (passedOpen[i] == breaker) {
        return false;
      }
    }
    return true;
  }

  /** Whether this call holds {@code breaker}'s probe. */
  public boolean isProbe(CircuitBreaker breaker) {
    for (int i = 0; i < probeCount; i++) {
      if (probes[i] == breaker) {
        return true;
      }
    }
    return false;
  }

  @Override
  public boolean isOpen() {
    long phase = state & PHASE;
    return phase == OPEN || phase == SETTLING;
  }

  boolean isFree() {
    return (state & PHASE) == FREE;
  }

  /**
   * Runs the exit of {@code call} exactly once, whichever thread closes it; returns false when that
   * call was already closed, or when the frame has moved on to a later call (the CAS expects the
   * call's own generation, so a late close can never finish a later call). {@code cancelled}: the
   * call ends by {@link Entry#cancel()}, which the winner of the CAS alone records.
   */
  boolean finish(long generation, boolean cancelled) {
    while (!STATE.compareAndSet(this, generation | OPEN, generation | CLOSING)) {
      if (state != (generation | SETTLING)) {
        return false;
      }
      Thread.onSpinWait(); // a settle of this call is running: it ends in a few CASes, then the close goes on
    }
    try {
      this.cancelled = cancelled;
      endNanos = rules.preciseTime ? stack.clock.readFresh() : stack.clock.read();
      rules.chain.exit(this); // none for an unchecked call
    } finally {
      release();
    }
    return true;
  }

  /** Finishes the current call if it is open; for the owner closing frames above a closed one. */
  boolean finish() {
    return finish(generation(), false);
  }

  /**
   * Undoes what the chain reserved for a call that will not run (a slot threw): permits held are
   * refunded, probes handed back to their breakers.
   */
  void abandon() {
    refundHeld();
    refuseProbes(stack.clock.read());
  }

  /** Hands the probes this call took back to their breakers: the call will not complete. */
  void refuseProbes(long now) {
    for (int i = 0; i < probeCount; i++) {
      probes[i].probeRefused(startNanos, now);
    }
    probeCount = 0;
  }

  /** Forgets the call (a refused call leaves through here without an exit). */
  void release() {
    args = NO_ARGS;
    error = null;
    refusedKind = null;
    refusedBy = null;
    refusedMissingKey = false;
    refusal = null;
    cancelled = false;
    node = null;
    rules = ResourceRules.NONE;
    heldCount = 0; // every permit was released or refunded, which forgot its limiter
    breakers = NO_BREAKERS;
    for (int i = 0; i < probeCount; i++) {
      probes[i] = null;
    }
    probeCount = 0;
    for (int i = 0; i < passedOpenCount; i++) {
      passedOpen[i] = null;
    }
    passedOpenCount = 0;
    STATE.setRelease(this, generation() | FREE);
  }

  /**
   * Records that {@code rule}, of {@code kind}, refuses the call, and returns false: what a slot
   * returns for a refusal ({@code return call.refuse(...)}).
   */
  boolean refuse(RuleKind kind, Rule rule, long retryAfterNanos) {
    this.refusedKind = kind;
    this.refusedBy = rule;
    this.refusedRetryAfterNanos = retryAfterNanos;
    this.refusedMissingKey = false;
    this.refusal = null;
    return false;
  }

  /** Records that hot-parameter {@code rule} refuses the call because it has no key, and returns false. */
  boolean refuseMissingKey(Rule rule) {
    refuse(RuleKind.PARAM_FLOW, rule, 0);
    this.refusedMissingKey = true;
    return false;
  }

  /** Records a refusal a custom slot made itself, and returns false. */
  boolean refuse(BlockException given) {
    this.refusedKind = given.ruleKind();
    this.refusedBy = given.rule();
    this.refusedRetryAfterNanos = given.retryAfterNanos();
    this.refusedMissingKey = given instanceof ParamFlowException param && param.missingKey();
    this.refusal = given;
    return false;
  }

  /**
   * A rule in shadow mode would refuse this call, which goes on: the one place where such a
   * refusal is counted (on the resource's statistics and the rule's report), whatever the kind.
   */
  void goesOnInShadow(ShadowRefusals shadow) {
    shadow.refused(node, acquireCount, startNanos);
  }

  /**
   * A rule refuses this call: in force ({@code shadow} null), the refusal is recorded and false
   * returned, as {@link #refuse}; in shadow mode, it is counted ({@link #goesOnInShadow}) and true
   * returned: the call goes on. The one branch every slot takes where a rule would refuse.
   */
  boolean refuseUnlessShadow(@Nullable ShadowRefusals shadow, RuleKind kind, Rule rule, long retryAfterNanos) {
    if (shadow == null) {
      return refuse(kind, rule, retryAfterNanos);
    }
    goesOnInShadow(shadow);
    return true;
  }

  /** Forgets a refusal recorded by a rule in shadow mode, which lets the call go on. */
  void forgetRefusal() {
    refusedKind = null;
    refusedBy = null;
    refusedMissingKey = false;
    refusal = null;
  }

  /** The kind of rule that refused the call; only after a slot refused it. */
  RuleKind refusedKind() {
    RuleKind kind = refusedKind;
    if (kind == null) {
      throw new IllegalStateException("the call was not refused");
    }
    return kind;
  }

  @Nullable Rule refusedBy() {
    return refusedBy;
  }

  long refusedRetryAfterNanos() {
    return refusedRetryAfterNanos;
  }

  boolean refusedMissingKey() {
    return refusedMissingKey;
  }

  /** The exception a custom slot refused the call with, or null (a built-in slot's is made when needed). */
  @Nullable BlockException givenRefusal() {
    return refusal;
  }

  /** The exception of the recorded refusal, made on first use; only after a slot refused the call. */
  BlockException refusal() {
    BlockException made = refusal;
    if (made == null) {
      made = refusedMissingKey ? new ParamFlowException(resource, refusedBy, 0, true)
          : BlockException.of(refusedKind(), resource, refusedBy, refusedRetryAfterNanos);
      refusal = made;
    }
    return made;
  }

  @Override
  public void recordError(Throwable error) {
    if (isOpen() && this.error == null && !(error instanceof BlockException)) {
      this.error = error;
    }
  }

  @Override
  public void close() {
    stack.close(this, generation(), false);
  }

  /*
   * Settling: the settle CASes the state from this call's OPEN to SETTLING, so that of two settles
   * racing one runs and the other finds SETTLING (or the settled flag) and throws, and a close
   * racing it spins in finish until the settle has set OPEN again: the held limiters are read by
   * one thread at a time. Each held limiter's newest successor is settled once, with the same delta
   * (a hot-parameter rule holds one limiter per key of the call, each took acquireCount permits).
   * The clock is read here, never at entry: a call that never settles pays nothing for this.
   */
  @Override
  public void settle(long permits) {
    if (permits < 0) {
      throw new IllegalArgumentException("permits must be 0 or more, got " + permits + " (resource '" + resource + "')");
    }
    long s = state;
    while (true) {
      long phase = s & PHASE;
      if (phase == SETTLING) {
        throw new IllegalStateException("Entry of '" + resource + "' is being settled by another thread; settle once");
      }
      if (phase != OPEN) {
        throw new IllegalStateException("Entry of '" + resource + "' is closed; settle before close()");
      }
      if (STATE.compareAndSet(this, s, (s & ~PHASE) | SETTLING)) {
        break;
      }
      s = state;
    }
    try {
      if (settled) {
        throw new IllegalStateException("Entry of '" + resource + "' was settled already; settle once");
      }
      settled = true;
      long delta = permits - acquireCount; // permits >= 0, acquireCount an int: no overflow
      if (delta != 0 && heldCount > 0) {
        long now = stack.clock.read();
        for (int i = 0; i < heldCount; i++) {
          FlowLimiter held = i == 0 ? firstHeld : moreHeld[i - 1];
          held.latest().settle(delta, heldToken(i), now);
        }
      }
      ResourceNode at = node;
      if (at != null) {
        at.recordCost(permits);
      }
    } finally {
      STATE.setRelease(this, (s & ~PHASE) | OPEN);
    }
  }

  @Override
  public void cancel() {
    stack.close(this, generation(), true);
  }

  /** The engine reading this call is timed from. */
  public long startNanos() {
    return startNanos;
  }

  @Override
  public String resource() {
    return resource;
  }

  @Override
  public EntryType entryType() {
    return entryType;
  }

  @Override
  public int acquireCount() {
    return acquireCount;
  }

  @Override
  public Object[] args() {
    return args;
  }

  @Override
  public String contextName() {
    return contextName;
  }

  @Override
  public String origin() {
    return origin;
  }

  @Override
  public Criticality criticality() {
    return criticality;
  }

  @Override
  public @Nullable Throwable error() {
    return error;
  }

  @Override
  public String toString() {
    return "Call{" + resource + (isOpen() ? ", open}" : ", closed}");
  }
}
