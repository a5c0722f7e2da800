package dev.weir.internal.cluster;

import dev.weir.cluster.ClusterClient;
import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterLease;
import dev.weir.cluster.ClusterLeases;
import dev.weir.cluster.ClusterLimit;
import dev.weir.cluster.ClusterOptions;
import dev.weir.cluster.LeaseRequest;
import dev.weir.internal.limit.WindowLimiter;
import dev.weir.internal.time.EngineClock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.jspecify.annotations.Nullable;

/**
 * An in-memory store for the lease stress tests: it answers at once (completed futures, so a round
 * trip is installed on the calling thread), admits every per-call decision, grants every lease
 * request what it asks for, and books what it granted and what came back, per grant.
 *
 * <p>Grants are numbered from 1 in the order the store made them; the receipt is that number. A
 * limiter installs its grants in the same order (its lease ids count installs from 1), so the
 * lease with id {@code n} is the store's grant {@code n} as long as every grant was installed (all
 * are, here: nothing misses its deadline). Given-back permits are summed per grant, whether they
 * came with a request's settlement or with {@link ClusterLeases#giveBack}: a lease settled twice
 * shows as more given back than it left unspent.
 *
 * <p>{@link #askLater} (set during a test's set-up only) answers a renewal ahead of time "ask
 * later" (nothing granted, not refused), as a store may: so that a set-up leaves exactly one lease.
 */
final class LeaseStore implements ClusterClient, ClusterCounter {

  /** Grants booked one by one; a test makes far fewer. */
  static final int MAX_GRANTS = 16;
  static final long COUNT = 1000;
  static final long INTERVAL = 1_000_000_000L;
  /** What a cluster rule of {@link #COUNT} per second leases for: {@link LeasedFlowLimiter#validity}. */
  static final long VALID = LeasedFlowLimiter.validity(INTERVAL);
  /** No round trip misses it: every future here is complete when returned. */
  static final ClusterOptions OPTIONS =
      new ClusterOptions(Duration.ofSeconds(10), ClusterFallback.DENY, 5, Duration.ofSeconds(1), 256, true);

  volatile boolean askLater;
  /** Per-call decisions made. */
  final AtomicLong perCall = new AtomicLong();
  final AtomicLong grants = new AtomicLong();
  final AtomicLong grantedPermits = new AtomicLong();
  /** Permits given back per grant (index = receipt); index 0 counts receipts out of range. */
  final AtomicLongArray givenBack = new AtomicLongArray(MAX_GRANTS + 1);
  /** How many {@link ClusterLeases} the limiter made ({@link #newLeases}). */
  final AtomicInteger made = new AtomicInteger();
  /** A bit per made {@link ClusterLeases} that received a request or a give-back. */
  final AtomicInteger used = new AtomicInteger();

  /** A limiter of this store with a closed lease timer: the tests call {@link LeasedFlowLimiter#sweep} themselves. */
  LeasedFlowLimiter limiter(EngineClock clock, long now) {
    ClusterGuard guard = new ClusterGuard(this, OPTIONS, clock);
    guard.close(); // no timer thread per test state: an actor plays the timer
    WindowLimiter local = new WindowLimiter(INTERVAL, COUNT, clock, now);
    ClusterFlowLimiter perCallLimiter = new ClusterFlowLimiter(guard, COUNT, this, local,
        count -> new WindowLimiter(INTERVAL, count, clock, now));
    return new LeasedFlowLimiter(guard, this::newLeases, perCallLimiter, COUNT, INTERVAL);
  }

  /** The supplier of the limiter's leases: a new view of this store each time, numbered. */
  ClusterLeases newLeases() {
    int index = made.getAndIncrement();
    return new Leases(index);
  }

  long givenBack(int grant) {
    return givenBack.get(grant);
  }

  long givenBackTotal() {
    long total = 0;
    for (int i = 0; i < givenBack.length(); i++) {
      total += givenBack.get(i);
    }
    return total;
  }

  private void settle(@Nullable ClusterLease lease, long unused) {
    if (lease == null) {
      return;
    }
    int receipt;
    try {
      receipt = Integer.parseInt(lease.receipt());
    } catch (NumberFormatException e) {
      receipt = 0;
    }
    givenBack.addAndGet(receipt >= 1 && receipt <= MAX_GRANTS ? receipt : 0, unused);
  }

  private final class Leases implements ClusterLeases {
    private final int index;

    Leases(int index) {
      this.index = index;
    }

    @Override
    public CompletableFuture<ClusterLease> lease(LeaseRequest request) {
      used.getAndUpdate(bits -> bits | (1 << Math.min(index, 30)));
      settle(request.settle(), request.unused());
      if (request.wanted() == 0 || (request.ahead() && askLater)) {
        return CompletableFuture.completedFuture(ClusterLease.none(false, COUNT, 0, 0, Long.MAX_VALUE));
      }
      long grant = grants.incrementAndGet();
      grantedPermits.addAndGet(request.wanted());
      return CompletableFuture.completedFuture(new ClusterLease(false, request.wanted(), request.validNanos(), COUNT,
          0, 0, Long.MAX_VALUE, Long.toString(grant)));
    }

    @Override
    public CompletableFuture<?> giveBack(ClusterLease lease, long unused) {
      used.getAndUpdate(bits -> bits | (1 << Math.min(index, 30)));
      settle(lease, unused);
      return CompletableFuture.completedFuture(null);
    }
  }

  @Override
  public CompletableFuture<ClusterDecision> acquire(int permits) {
    perCall.incrementAndGet();
    return CompletableFuture.completedFuture(new ClusterDecision(true, COUNT, 0));
  }

  @Override
  public ClusterCounter counter(ClusterLimit limit) {
    return this;
  }

  @Override
  public CompletableFuture<?> ping() {
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public String description() {
    return "in-memory lease store (jcstress)";
  }
}
