package dev.weir.internal.cluster;

import dev.weir.cluster.ClusterLease;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * Lease accounting of one lease as this instance spends it: its permits left (the {@code AtomicLong},
 * {@link #CLOSED} once closed, which no spend can pass), its end in engine time, and the two marks at
 * which a spend asks for its renewal ({@link #lowWater}, {@link #renewAt}).
 *
 * <p><b>When to renew.</b> A renewal must be answered before the lease in hand runs out, by permits
 * or by time. So a spend renews once at most {@link #lowWater} permits are left, or from
 * {@link #renewAt} on: half the block and the last quarter of the validity, as before, or earlier when
 * the round trip is slow: the permits the measured rate spends in {@code cover}, and {@code cover}
 * before the end, where {@code cover} is twice the high quantile of the recent round trips
 * ({@link RoundTripTimes}, from wanting a renewal to installing it). Both marks are computed here,
 * once per lease, so the spend compares two final fields as before.
 */
@SuppressWarnings("serial")
final class Lease extends AtomicLong {

  /** The permits left of a closed lease. */
  static final long CLOSED = -1;
  /** The smallest lease that is renewed ahead of time; smaller ones are one call's permits or so. */
  static final long AHEAD_FROM = 4;

  static final Lease NONE = new Lease();

  final long id;
  final @Nullable ClusterLease grant;
  final long size;
  final long startedAt;
  final long endsAt;
  /** Whether calls renew this lease ahead of its end. */
  final boolean ahead;
  final long lowWater;
  final long renewAt;
  private final AtomicLong renewal = new AtomicLong();

  private Lease() {
    super(CLOSED);
    this.id = -1;
    this.grant = null;
    this.size = 0;
    this.startedAt = 0;
    this.endsAt = Long.MIN_VALUE; // never compared but by an overflow-safe difference with a reading
    this.ahead = false;
    this.lowWater = -1;
    this.renewAt = 0;
  }

  /** A lease renewed at half its size and in its last quarter: no round trip measured yet. */
  Lease(long id, ClusterLease grant, long startedAt, long validNanos) {
    this(id, grant, startedAt, validNanos, 0, 0);
  }

  /**
   * @param coverPermits renew once no more than this is left (when more than half the block)
   * @param coverNanos renew from this long before the end on (when longer than a quarter of the validity)
   */
  Lease(long id, ClusterLease grant, long startedAt, long validNanos, long coverPermits, long coverNanos) {
    super(grant.granted());
    this.id = id;
    this.grant = grant;
    this.size = grant.granted();
    this.startedAt = startedAt;
    this.endsAt = startedAt + validNanos;
    this.ahead = size >= AHEAD_FROM;
    this.lowWater = Math.max(size / 2, Math.min(size, coverPermits));
    this.renewAt = endsAt - Math.max(validNanos / 4, Math.min(validNanos, coverNanos));
  }

  /** Whether the caller is the one to ask for this lease's renewal; true once per lease. */
  boolean claimRenewal() {
    return renewal.compareAndSet(0, 1);
  }

  /** Closes the lease: no spend passes after this; returns the permits it had left (0 if it was closed). */
  long close() {
    return Math.max(0, getAndSet(CLOSED));
  }
}
