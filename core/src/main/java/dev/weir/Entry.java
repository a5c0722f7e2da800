package dev.weir;

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
 * and then throws {@link IllegalStateException} naming them. An entry may be closed from another
 * thread (for a call handed to an executor); it is then not checked for order. An entry of
 * {@link Weir#asyncEntry} never nests: it is closed from any thread, in any order.
 *
 * <h2>Exactly once</h2>
 * {@link #close()} is idempotent, from any thread and at any time: an entry names one call, and
 * once that call is closed, closing or recording an error on the same entry again does nothing,
 * even after the thread that opened it has gone on to later calls. (The engine reuses its
 * per-thread call state; an entry is a small handle on one use of it.)
 */
public final class Entry implements AutoCloseable {

  private final Frame frame;
  private final long call;
  private final String resource;
  private final EntryType entryType;
  private final int acquireCount;
  private final String contextName;
  private final String origin;

  Entry(Frame frame) {
    this.frame = frame;
    this.call = frame.call();
    this.resource = frame.resource;
    this.entryType = frame.entryType;
    this.acquireCount = frame.acquireCount;
    this.contextName = frame.contextName;
    this.origin = frame.origin;
  }

  /**
   * Marks the call failed. Recorded at close as a failure (and, for circuit breakers, as an error).
   * The first error recorded wins; a {@link BlockException} is ignored, since a refusal further
   * down is not a failure of this call. Ignored once the call is closed.
   */
  public void recordError(Throwable error) {
    if (frame.isOpen(call)) {
      frame.recordError(error);
    }
  }

  /** Completes the call; see the class comment for nesting and threads. Idempotent. */
  @Override
  public void close() {
    frame.stack.close(frame, call, false);
  }

  /**
   * Completes the call as cancelled: its caller gave up before the call's outcome was known (a
   * cancelled future or subscription, a timeout of the caller's, a client that went away). It
   * releases what the call holds and is counted in the statistics as {@link #close()} does, but a
   * circuit breaker learns only what a cancel proves: that the call ran at least until now. A
   * slow-ratio breaker counts it as a slow call when it ran past the slow-call threshold; otherwise
   * no breaker counts it, neither as a success nor as a failure, and a breaker whose probe it was
   * is open again with its open period over, so that the next call probes. A cancel after
   * {@link #recordError} is a failed call, as a close. Idempotent with {@link #close()}: of the two,
   * only the first decides.
   */
  public void cancel() {
    frame.stack.close(frame, call, true);
  }

  /** Returns the guarded resource's name. */
  public String resource() {
    return resource;
  }

  /** Returns the direction of the call. */
  public EntryType entryType() {
    return entryType;
  }

  /** Returns the permits the call took. */
  public int acquireCount() {
    return acquireCount;
  }

  /** Returns the context the call was made in. */
  public String contextName() {
    return contextName;
  }

  /** Returns the caller's origin, empty when unknown. */
  public String origin() {
    return origin;
  }

  /** Returns the failure recorded with {@link #recordError}, or null; null once closed. */
  public @Nullable Throwable error() {
    return frame.isOpen(call) ? frame.error : null;
  }

  /** True until the call is closed. */
  public boolean isOpen() {
    return frame.isOpen(call);
  }

  /** Whether this open call is {@code breaker}'s probe; for tests. */
  boolean isProbe(CircuitBreaker breaker) {
    return frame.isOpen(call) && frame.isProbe(breaker);
  }

  /** The engine reading this call is timed from; for tests. */
  long startNanos() {
    return frame.startNanos;
  }

  @Override
  public String toString() {
    return "Entry{" + resource + (isOpen() ? ", open}" : ", closed}");
  }
}
