package dev.weir.cluster;

import java.util.concurrent.CompletableFuture;

/**
 * Leases of one limit ({@link ClusterClient#leases}, {@link ClusterClient#keyLeases}): blocks of
 * permits counted in the store at once and spent by this instance on its own, so that the store is
 * asked once per block instead of once per call.
 *
 * <p>What a store must keep for leases to be sound, whatever the number of instances:
 * <ul>
 *   <li>A grant counts its permits in the limit at once, as admissions, in the same step that checks
 *       they fit (as {@link ClusterCounter#acquire} does for one call's permits).
 *   <li>Permits given back are counted out at most once per lease, only while the lease's grant is
 *       still counted, and never more than were granted: a give-back sent twice, or one reaching a
 *       store that lost its counts (flushed, restarted empty) after the grant, changes nothing.
 *   <li>A lease's permits stay counted, when never given back, for as long as admissions made when
 *       it was granted would be, extended where the limit needs it for every spend inside the lease's
 *       validity to be covered (see the store's documentation for its bound).
 * </ul>
 *
 * <p>Neither method may block; both follow {@link ClusterCounter}'s rules on futures (the engine
 * waits at most its deadline, and cancels what it gave up on).
 */
public interface ClusterLeases {

  /** Starts one lease round trip: settles {@code request.settle()} if given, then grants or refuses. */
  CompletableFuture<ClusterLease> lease(LeaseRequest request);

  /** Starts giving back {@code unused} permits of {@code lease}, which settles it; nothing is granted. */
  CompletableFuture<?> giveBack(ClusterLease lease, long unused);
}
