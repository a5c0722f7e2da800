package dev.weir.cluster;

import org.jspecify.annotations.Nullable;

/**
 * One request for a lease of permits ({@link ClusterLeases#lease}), which may also settle this
 * instance's previous lease of the same limit.
 *
 * @param wanted permits asked for, {@code >= minimum}; the store grants fewer when fewer are free
 *     (but never fewer than {@code minimum}), or {@code 0} to only settle
 * @param minimum the fewest permits worth granting (the permits of the call waiting for the lease);
 *     when fewer are free the store refuses, counting nothing
 * @param validNanos the longest the lease may be valid for, measured from the send; the store may
 *     grant a shorter one (a bucketed window ends a lease with its bucket)
 * @param ahead whether this renews ahead of time, with no call waiting for it: a store may then
 *     answer "ask later" ({@link ClusterLease#refused()} false, nothing granted) instead of a short lease
 * @param demand permits per interval this instance would take at its current rate of calls, for the
 *     store's fair shares ({@link ClusterLease#share()}); {@code 0} when unknown
 * @param settle a lease of this limit granted earlier that this instance no longer spends from, or
 *     null; the store gives back {@code unused} of its permits before deciding, at most once per lease
 * @param unused permits of {@code settle} that were not spent, {@code 0 <= unused <= settle.granted()}
 */
public record LeaseRequest(long wanted, long minimum, long validNanos, boolean ahead, long demand,
    @Nullable ClusterLease settle, long unused) {

  /** Checks the components. */
  public LeaseRequest {
    if (minimum < 0 || wanted < minimum || validNanos <= 0 || demand < 0 || unused < 0) {
      throw new IllegalArgumentException("need 0 <= minimum <= wanted, validNanos > 0, demand >= 0 and unused >= 0, "
          + "were " + minimum + ", " + wanted + ", " + validNanos + ", " + demand + " and " + unused);
    }
    if (settle == null ? unused != 0 : unused > settle.granted()) {
      throw new IllegalArgumentException("unused must be at most the settled lease's granted permits, was " + unused);
    }
  }
}
