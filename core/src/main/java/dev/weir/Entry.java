package dev.weir;

import org.jspecify.annotations.Nullable;

/**
 * An admitted call of a resource, returned by {@link Weir#entry} and {@link Weir#tryEntry}. Close
 * it when the call completes, which records its completion and response time and releases what it
 * holds (a place under a concurrency limit); use {@link #recordError} first when the call failed:
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
 * thread; it is then not checked for order. An entry of {@link Weir#asyncEntry} never nests: it is
 * closed from any thread, in any order.
 *
 * <h2>Once</h2>
 * An entry of {@link Weir#entry} or {@link Weir#tryEntry} is the thread's own state for the call,
 * which the engine reuses for the thread's next call at the same nesting depth: that is why guarding
 * a call allocates nothing. Close it once (try-with-resources does). Closing it again, or calling
 * {@link #recordError} after the close, does nothing as long as the thread has not made another
 * call at that depth since; after that it would act on the later call. Its accessors describe the
 * call while it is open. An entry of {@link Weir#asyncEntry} is never reused: closing it is
 * idempotent at any time, from any thread (what a completion racing a cancellation needs).
 *
 * <p>Entries are made by the engine only; the class is not meant to be extended.
 */
public abstract class Entry implements AutoCloseable {

  /** For the engine's call state only: entries are made by the engine. */
  protected Entry() {
  }

  /**
   * Marks the call failed. Recorded at close as a failure (and, for circuit breakers, as an error).
   * The first error recorded wins; a {@link BlockException} is ignored, since a refusal further
   * down is not a failure of this call. Ignored once the call is closed.
   */
  public abstract void recordError(Throwable error);

  /**
   * Settles the call at its actual cost, for a cost known only after the call (the tokens of a
   * model's answer, bytes sent, rows read). The entry took {@link #acquireCount()} permits (its
   * estimate) from every rule that counts permits; {@code settle} gives back what was not used, or
   * charges what was used beyond the estimate as a debt that the same rule (and, for a hot-parameter
   * rule, the same key) takes before it admits again. Rules that do not count permits (concurrency
   * and adaptive limits, circuit breakers) are untouched; a rule in shadow mode is settled as it
   * counted. A flow rule whose {@code count} changed since the call was admitted is settled in its
   * current state; a hot-parameter rule whose {@code count} changed starts afresh, and the settle
   * goes to the state the call was admitted in.
   *
   * <p>The bound: over any window of a rule, the cost it takes (estimates at admission, debts as it
   * takes them, less what was given back) is at most its {@code count} plus the largest excess of
   * one call over its estimate. A debt is taken in full while the rule is not over its count, else
   * as room comes; the rule admits nothing while a debt is unpaid. Costs saturate: a cost of
   * {@link Long#MAX_VALUE} never overflows a rule's count, it only keeps the rule shut.
   *
   * <p>At most once per entry, before {@link #close()}: a second call, or a call after the close,
   * throws {@link IllegalStateException} (for an entry of {@link Weir#entry} reused by a later call
   * of the same thread, see "Once" in the class comment). For an entry of {@link Weir#asyncEntry}
   * from any thread: of two settles racing, exactly one settles and the other throws; a close racing
   * a settle completes after it. Not settling a call keeps its estimate.
   *
   * @param permits the call's actual cost, in permits; {@code 0} or more
   * @throws IllegalArgumentException when {@code permits} is negative
   * @throws IllegalStateException when the call was settled already or is closed
   */
  public abstract void settle(long permits);

  /** Completes the call; see the class comment for nesting, threads and closing once. */
  @Override
  public abstract void close();

  /**
   * Completes the call as cancelled: its caller gave up before the call's outcome was known (a
   * cancelled future or subscription, a timeout of the caller's, a client that went away). It
   * releases what the call holds and is counted in the statistics as {@link #close()} does, but a
   * circuit breaker learns only what a cancel proves: that the call ran at least until now. A
   * slow-ratio breaker counts it as a slow call when it ran past the slow-call threshold; otherwise
   * no breaker counts it, neither as a success nor as a failure, and a breaker whose probe it was
   * is open again with its open period over, so that the next call probes. A cancel after
   * {@link #recordError} is a failed call, as a close. Of a close and a cancel of the same call,
   * only the first decides (see the class comment for closing once).
   */
  public abstract void cancel();

  /** Returns the guarded resource's name. */
  public abstract String resource();

  /** Returns the direction of the call. */
  public abstract EntryType entryType();

  /** Returns the permits the call took. */
  public abstract int acquireCount();

  /** Returns the context the call was made in. */
  public abstract String contextName();

  /** Returns the caller's origin, empty when unknown. */
  public abstract String origin();

  /** Returns the call's criticality (see {@link Criticality}). */
  public abstract Criticality criticality();

  /** Returns the failure recorded with {@link #recordError}, or null; null once closed. */
  public abstract @Nullable Throwable error();

  /** True until the call is closed. */
  public abstract boolean isOpen();
}
