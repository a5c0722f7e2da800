package dev.weir.cluster;

import java.util.Objects;

/**
 * The store's answer to one {@link ClusterLeases#lease} request: a block of permits this instance
 * may spend on its own for a while, or why it got none.
 *
 * <p>A granted lease was counted in the store when it was granted, all its permits at once, as if
 * they had all been admitted then. The instance spends them locally, only while the lease is valid:
 * from the moment it sent the request until {@code validNanos} later, measured on its own clock
 * from the send, so that it stops no later than the store's own end of the lease, whatever the
 * delay of the request. Permits it does not spend are given back ({@link ClusterLeases#giveBack}, or
 * settled with its next request); a lease never given back (the instance died) ends on its own, and
 * its permits count as spent until they leave the store's window.
 *
 * @param refused whether the store refused because the limit has no room for the request's
 *     {@code minimum}: calls should be refused until {@code retryAfterMillis} have passed. When no
 *     permit was granted and this is false, the store asks the instance to ask again later (a
 *     renewal ahead of time that came too late, see {@link LeaseRequest#ahead()}), which is not a
 *     reason to refuse a call.
 * @param granted permits granted, {@code 0} when none
 * @param validNanos how long after sending the request the permits may be spent; positive when granted
 * @param remaining permits still free in the limit after this answer, {@code >= 0}
 * @param retryAfterMillis when refused, the milliseconds until the request's {@code minimum} fits; else 0
 * @param stampMicros the store's clock when it decided, in microseconds since the epoch; {@code 0}
 *     when the store does not say
 * @param share permits per interval this instance may take while the limit cannot serve every
 *     instance's demand (its fair share, see {@link LeaseRequest#demand()}); {@link Long#MAX_VALUE}
 *     when the store does not arbitrate, or the limit serves every demand
 * @param receipt what the store needs to settle this lease later (its own identifier of the grant);
 *     empty when nothing was granted
 */
public record ClusterLease(boolean refused, long granted, long validNanos, long remaining, long retryAfterMillis,
    long stampMicros, long share, String receipt) {

  /** Checks the components. */
  public ClusterLease {
    Objects.requireNonNull(receipt, "receipt");
    if (granted < 0 || validNanos < 0 || remaining < 0 || retryAfterMillis < 0 || stampMicros < 0 || share < 0) {
      throw new IllegalArgumentException("granted, validNanos, remaining, retryAfterMillis, stampMicros and share "
          + "must be >= 0, were " + granted + ", " + validNanos + ", " + remaining + ", " + retryAfterMillis + ", "
          + stampMicros + " and " + share);
    }
    if (granted > 0 && (refused || validNanos == 0)) {
      throw new IllegalArgumentException("a granted lease is not refused and has a positive validNanos");
    }
  }

  /** An answer that grants nothing: refused (the limit is full) or, when not {@code refused}, "ask later". */
  public static ClusterLease none(boolean refused, long remaining, long retryAfterMillis, long stampMicros, long share) {
    return new ClusterLease(refused, 0, 0, remaining, retryAfterMillis, stampMicros, share, "");
  }
}
