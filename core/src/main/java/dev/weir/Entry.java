package dev.weir;

import dev.weir.spi.Invocation;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.jspecify.annotations.Nullable;

/**
 * An admitted call of a resource, returned by {@link Weir#entry}. Close it when the call completes,
 * which records its completion and response time and releases what it holds (a place under a
 * concurrency limit); use {@link #recordError} first when the call failed:
 * <pre>{@code
 * try (Entry entry = weir.entry("createOrder")) {
 *   try {
 *     return orders.create(request);
 *   } catch (RuntimeException e) {
 *     entry.recordError(e);
 *     throw e;
 *   }
 * } catch (BlockException blocked) {
 *   return Response.tooManyRequests(blocked.retryAfter());
 * }
 * }</pre>
 *
 * <h2>Nesting and threads</h2>
 * Entries opened by one thread nest: close them in the reverse order of opening. Closing an entry
 * while entries opened after it on the same thread are still open closes those too (nothing leaks)
 * and then throws {@link IllegalStateException} naming them. An entry may be closed once from
 * another thread (for a call handed to an executor); it is then not checked for order.
 * {@link #close()} is idempotent.
 *
 * <h2>Reuse</h2>
 * To keep the hot path free of allocation, the engine reuses entry objects per thread: once closed,
 * the same object may represent a later call of the thread that opened it. Do not keep an entry
 * after closing it.
 */
public final class Entry implements AutoCloseable, Invocation {

  static final int FREE = 0;
  static final int OPEN = 1;
  static final int CLOSING = 2;

  private static final Object[] NO_ARGS = new Object[0];
  private static final CircuitBreaker[] NO_BREAKERS = new CircuitBreaker[0];
  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(Entry.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final CallStack stack;
  private volatile int state;
  int depth;

  String resource = "";
  /** Null when the resource is beyond the engine's bound and the call passes unchecked. */
  ResourceNode node;
  EntryType entryType = EntryType.OUT;
  int acquireCount;
  Object[] args = NO_ARGS;
  String contextName = Weir.DEFAULT_CONTEXT;
  String origin = "";
  @Nullable StatisticNode contextNode;
  @Nullable StatisticNode originNode;
  long startNanos;
  long endNanos;
  SlotChain chain;
  @Nullable Throwable error;

  FlowLimiter[] held = new FlowLimiter[2];
  long[] heldTokens = new long[2];
  int heldCount;

  CircuitBreaker[] breakers = NO_BREAKERS;
  CircuitBreaker[] probes = new CircuitBreaker[1];
  int probeCount;

  Entry(CallStack stack) {
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
    STATE.setRelease(this, OPEN);
  }

  void hold(FlowLimiter limiter, long token) {
    if (heldCount == held.length) {
      held = java.util.Arrays.copyOf(held, heldCount * 2);
      heldTokens = java.util.Arrays.copyOf(heldTokens, heldCount * 2);
    }
    held[heldCount] = limiter;
    heldTokens[heldCount++] = token;
  }

  /** Gives back every permit held: the call was refused after some rules admitted it. */
  void refundHeld() {
    for (int i = heldCount - 1; i >= 0; i--) {
      held[i].refund(acquireCount, heldTokens[i]);
      held[i] = null;
    }
    heldCount = 0;
  }

  /** Releases every permit held: the call completed. */
  void releaseHeld() {
    for (int i = 0; i < heldCount; i++) {
      held[i].release(acquireCount);
      held[i] = null;
    }
    heldCount = 0;
  }

  void addProbe(CircuitBreaker breaker) {
    if (probeCount == probes.length) {
      probes = java.util.Arrays.copyOf(probes, probeCount * 2);
    }
    probes[probeCount++] = breaker;
  }

  boolean isProbe(CircuitBreaker breaker) {
    for (int i = 0; i < probeCount; i++) {
      if (probes[i] == breaker) {
        return true;
      }
    }
    return false;
  }

  boolean isOpen() {
    return state == OPEN;
  }

  boolean isFree() {
    return state == FREE;
  }

  /**
   * Runs the exit of this call exactly once, whichever thread closes it; returns false when it was
   * already closed.
   */
  boolean finish() {
    if (!STATE.compareAndSet(this, OPEN, CLOSING)) {
      return false;
    }
    try {
      stack.engine.exit(this);
    } finally {
      release();
    }
    return true;
  }

  /** Forgets the call (a refused call leaves through here without an exit). */
  void release() {
    args = NO_ARGS;
    error = null;
    node = null;
    chain = null;
    contextNode = null;
    originNode = null;
    heldCount = 0;
    breakers = NO_BREAKERS;
    for (int i = 0; i < probeCount; i++) {
      probes[i] = null;
    }
    probeCount = 0;
    STATE.setRelease(this, FREE);
  }

  /**
   * Marks the call failed. Recorded at close as a failure (and, for circuit breakers, as an error).
   * The first error recorded wins; a {@link BlockException} is ignored, since a refusal further
   * down is not a failure of this call.
   */
  public void recordError(Throwable error) {
    if (this.error == null && !(error instanceof BlockException)) {
      this.error = error;
    }
  }

  /** Completes the call; see the class comment for nesting and threads. Idempotent. */
  @Override
  public void close() {
    stack.close(this);
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
  public @Nullable Throwable error() {
    return error;
  }

  @Override
  public String toString() {
    return "Entry{" + resource + (isOpen() ? ", open}" : ", closed}");
  }
}
