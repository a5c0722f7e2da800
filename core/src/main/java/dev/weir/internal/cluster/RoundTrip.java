package dev.weir.internal.cluster;

import dev.weir.cluster.ClusterLease;
import dev.weir.cluster.FallbackReason;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * One lease round trip: the store's future, and {@code installed}, completed once the answer is
 * the current lease (or the refusal), which is what waiting calls wait for.
 */
final class RoundTrip implements BiConsumer<ClusterLease, Throwable> {
  private static final int PENDING_STATE = 0;
  private static final int DONE = 1;

  private final LeasedFlowLimiter limiter;
  private final ClusterGuard guard;
  final long sentAt;
  final long startNanos = System.nanoTime();
  final long minimum;
  final boolean probe;
  final CompletableFuture<ClusterLease> installed = new CompletableFuture<>();
  volatile @Nullable CompletableFuture<ClusterLease> future;
  LeasedFlowLimiter.@Nullable Settlement settlement;
  /** Whether this renews ahead of time (no call waits for it). */
  boolean ahead;
  /** When it was wanted: {@link #sentAt}, or the reading of the call that asked the renewal thread for it. */
  long wantedAt;
  /** Whether it asked for a block at least (the limit was scarce); set before it is sent. */
  boolean askedBlock;
  private final AtomicInteger state = new AtomicInteger();

  /** Why a round trip ended without an answer, handed to the calls waiting for it. */
  @SuppressWarnings("serial")
  static final class Unanswered extends Exception {
    final FallbackReason reason;

    Unanswered(FallbackReason reason) {
      super(reason.name(), null, false, false);
      this.reason = reason;
    }
  }

  private static final Unanswered TIMED_OUT = new Unanswered(FallbackReason.TIMEOUT);

  RoundTrip(LeasedFlowLimiter limiter, long sentAt, long minimum, boolean probe) {
    this.limiter = limiter;
    this.guard = limiter.guard;
    this.sentAt = sentAt;
    this.wantedAt = sentAt;
    this.minimum = minimum;
    this.probe = probe;
  }

  /** A round trip that was never sent, since another ended meanwhile: its waiters look at the lease again. */
  RoundTrip settledElsewhere() {
    state.set(DONE);
    installed.complete(null);
    return this;
  }

  /** The store answered, or failed. */
  @Override
  public void accept(@Nullable ClusterLease answer, @Nullable Throwable failure) {
    if (failure != null) {
      if (state.compareAndSet(PENDING_STATE, DONE)) {
        Throwable cause = failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause() : failure;
        guard.failed(FallbackReason.ERROR, cause, sentAt, probe);
        limiter.requeue(settlement);
        end();
        installed.completeExceptionally(cause);
      }
      return;
    }
    if (!state.compareAndSet(PENDING_STATE, DONE)) {
      if (answer != null && answer.granted() > 0) {
        limiter.giveBack(new LeasedFlowLimiter.Settlement(answer, answer.granted())); // granted after the deadline: nobody spends it
      }
      return;
    }
    guard.answered(sentAt, probe, System.nanoTime() - startNanos);
    if (answer != null) {
      limiter.install(this, answer);
    }
    end();
    installed.complete(answer);
  }

  /** Sending failed before the store saw anything. */
  void failed(Throwable cause) {
    if (state.compareAndSet(PENDING_STATE, DONE)) {
      guard.failed(FallbackReason.ERROR, cause, sentAt, probe);
      end();
      installed.completeExceptionally(cause);
    }
  }

  /**
   * Gives up on the round trip if its deadline has passed: cancels the store's future (a client
   * drops a command it has not sent), counts a timeout towards the breaker, and lets its waiters
   * fall back. Returns whether the round trip is over.
   */
  boolean timeOut() {
    if (state.get() != PENDING_STATE) {
      return true;
    }
    if (System.nanoTime() - startNanos < guard.timeoutNanos()) {
      return false;
    }
    if (!state.compareAndSet(PENDING_STATE, DONE)) {
      return true;
    }
    CompletableFuture<ClusterLease> sent = future;
    if (sent != null) {
      sent.cancel(false);
    }
    guard.failed(FallbackReason.TIMEOUT, null, sentAt, probe);
    limiter.requeue(settlement);
    end();
    installed.completeExceptionally(TIMED_OUT);
    return true;
  }

  private void end() {
    limiter.ended(this);
  }
}
