package dev.weir.internal.cluster;

import dev.weir.cluster.ClusterLease;
import dev.weir.cluster.ClusterLeases;
import dev.weir.cluster.FallbackReason;
import dev.weir.cluster.LeaseRequest;
import dev.weir.internal.limit.FlowLimiter;
import dev.weir.internal.time.EngineClock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigInteger;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The limiter of a cluster-mode rule (or of one key of a cluster-mode param-flow rule) with
 * {@code weir.cluster.lease}: it leases blocks of permits from the store ({@link ClusterLeases}) and
 * admits calls from the block it holds, at the cost of one CAS, asking the store once per block.
 *
 * <h2>The engine's side of the protocol</h2>
 * <ul>
 *   <li><b>One lease at a time.</b> {@link #current} is the lease calls spend from: its permits left
 *       ({@link Lease}, an {@code AtomicLong}) and the engine time it ends at, {@code sentAt + validNanos},
 *       where {@code sentAt} is the reading of the call that started the round trip, taken before the
 *       request was sent, and {@code validNanos} what the store granted. The store's lease starts when
 *       it decides, which is after the send, so the instance stops spending no later than the store's
 *       lease ends, whatever the request's delay (up to the rates of the two clocks: the engine
 *       measures a duration on its own ticker, never compares its time with the store's).
 *   <li><b>One round trip at a time</b> ({@link #pending}, set by CAS): calls that find the lease
 *       empty or ended join the round trip in flight instead of sending their own, each waiting at
 *       most the deadline ({@link ClusterGuard}'s timeout); but not a probe of the open breaker, nor a
 *       round trip sent after failures ({@link ClusterGuard#failing}): those only their own call
 *       waits for, and the others fall back at once, so a store that hangs holds the calls of one
 *       round trip once, then one call per round trip. The round trip goes through the guard as a
 *       per-call decision does (breaker, in-flight bound) and counts towards the breaker once,
 *       whatever number of calls waited for it.
 *   <li><b>Renewal ahead.</b> A call that leaves a lease of four permits or more at its low water
 *       or less, or spends from it from its renewal mark on, starts the next round trip without
 *       waiting for it ({@link LeaseRequest#ahead()}), so that a busy instance rarely waits. The low
 *       water is half the lease, or what the measured rate ({@link SpendRate#rate}) spends in twice
 *       the high quantile of the recent round trips ({@link RoundTripTimes}) if more; the mark is the
 *       last quarter of its time, or that span before its end if longer ({@link Lease}). On real time
 *       the round trip is sent by the engine's renewal thread ({@link LeaseRenewer}), not by the call,
 *       which only hands it over; with a driven ticker, by the call.
 *       The answer replaces {@link #current}; the lease it replaces is closed first (its permits left
 *       set to {@link #CLOSED} in one {@code getAndSet}, which no spend can pass), and what it had left
 *       is given back.
 *   <li><b>Renewal racing expiry.</b> A spend checks the lease's end against its call's reading and
 *       then takes its permits by CAS. A lease closed meanwhile (replaced, or ended by the timer)
 *       fails the CAS, and the call looks again at the current lease. A late reading (see
 *       {@link EngineClock}) is decided at its own time, as every limiter decides it; that it may
 *       lie before the lease was granted does not matter, since the spend happens after.
 *   <li><b>Giving back.</b> The permits a closed lease did not spend are settled with the next
 *       request ({@link LeaseRequest#settle()}), or, when no request follows before the lease ends,
 *       given back by the guard's {@link LeaseTimer}, which watches each limiter holding a lease with
 *       permits beyond its first call's: so an idle instance holds no permits beyond a lease's
 *       validity. A settlement lost with a failed round trip is queued again; the store applies each at
 *       most once. A permit refunded after its lease closed (a later rule refused the call) is not
 *       given back: the store keeps it counted, which errs on the safe side.
 *   <li><b>Block size</b> follows this instance's rate of spending: the next block is what the
 *       current lease's spending rate would use in half a lease's validity (or in twice the round
 *       trip's high quantile, if longer, up to a validity: a block must outlast its renewal's round
 *       trip), at least the call's
 *       permits and at most four times the current block, and at most {@link #maxBlock}
 *       {@code B = max(1, min(floor(count) / 16, floor(floor(count) * 10 s / interval)))}; a lease
 *       ended with permits left sizes the next one by what was spent. A call of more permits than
 *       {@code B} is never leased: the store decides it alone.
 *   <li><b>An instance that dies</b> (killed, no close) strands, per limit, the unspent permits of
 *       the leases the store granted it and never got back: the lease it spent from, the one
 *       renewed ahead, the one granted to its round trip in flight (one at a time), and the rests of
 *       closed leases still on their way back ({@code g}: the one settlement queued for the next
 *       request, a give-back not yet run by the store; normally at most 1). Each is at most a block,
 *       so at most {@code (3 + g) * B}, and the store keeps them counted until their lease's bucket
 *       leaves the window: up to a day for a daily quota. Hence the second cap of {@code B}, for
 *       windows over 160 s: {@code 4 * B} is then at most {@code 4 * floor(count) * 10 s / interval},
 *       0.046 % of a day's count (but at least 4 permits). The other way considered was to reclaim an
 *       expired lease's unspent part from its receipt; it was not taken, because the store never
 *       learns what a lease spent (spends are local, that is the point of a lease): a receipt
 *       says what was granted, and a lease whose instance died may have spent all of it, so
 *       reclaiming the receipt could admit more than the count. The cap is local, needs no change
 *       of the store's scripts, and the accuracy bound holds as before (smaller blocks only). Its
 *       cost: a burst on a long window takes more round trips (a block per round trip), and at the
 *       count spread evenly over the window the fleet needs a round trip per 10 s.
 *   <li><b>Refusals cost nothing remote.</b> A lease the store refuses (the limit has no room)
 *       refuses every call of this limiter, here, until the store's retry-after has passed, or a
 *       lease's validity (at least 100 ms) if that is sooner: then the next call asks again. Each
 *       call refused here is told the store's retry-after (hours, for a daily quota), not this span.
 *   <li><b>Failures.</b> When the store cannot answer in time (or the breaker is open, or too many
 *       round trips are in flight), the calls waiting fall back as per-call decisions do
 *       ({@link ClusterFlowLimiter#fallBack}), each counted once. A lease the store granted after the
 *       deadline is given back at once. A lease already held stays valid to its end: the store
 *       counted it. So when the store fails, an instance spends at most the lease it holds, then the
 *       fallback decides.
 *   <li><b>Hot and cold.</b> A lease pays only when it serves several calls: a block of one permit
 *       costs the round trip a per-call decision costs, and a receipt and a settlement besides. So
 *       this limiter leases only while it is <i>hot</i>. It starts cold: a call the lease cannot serve
 *       is decided per call ({@link #perCall}, on the same state in the store, so the two modes
 *       share one count), and counted in a span of one validity ({@link #heats}); once a span holds
 *       {@link #HOT_PERMITS} permits (a block of {@link #AHEAD_FROM}, the smallest renewed ahead,
 *       would be spent in half a validity), or the store refuses one of its calls (the limit is
 *       short), it turns hot and leases. It turns cold again when the rate measured at a lease
 *       request would size a block below 2 and the store's last answer was no refusal
 *       ({@link #measure}): the two rate thresholds a factor of 4 apart, so that a key near one of
 *       them does not flap, and a short limit stays leased: refusals stay local, and the fair shares
 *       see this instance's demand, which only lease requests carry. Which mode a
 *       call takes changes what it costs, never what the store admits: both are counted there, and
 *       the counts in a span may be lost to a race (two threads starting a new span), which only
 *       delays leasing. Most keys of a per-key rule (10^4 keys at 10^4 calls/s: one call per key
 *       per second) stay cold and cost what per-call mode costs; the hot ones lease.
 *   <li><b>Counts.</b> A call admitted from a lease is counted as admitted by the store, a call
 *       refused by a refusal of the store as blocked, so that each cluster-mode call is counted once
 *       as before; lease round trips, leased and returned permits are counted apart.
 * </ul>
 * <p>The parts: this class keeps the protocol (spending, round trips, installing, settling); the
 * accounting of one lease is {@link Lease}, the rate of spending {@link SpendRate}, the round trip's
 * high quantile {@link RoundTripTimes}, and the sending of renewals {@link LeaseRenewer}.
 *
 * <p>A call that cannot be served by two round trips in a row (other threads spent the permits its
 * round trips brought) asks the store for its own permits alone ({@link ClusterFlowLimiter}), so
 * every call ends after at most three deadlines; so does a call of more permits than a block.
 */
public final class LeasedFlowLimiter extends FlowLimiter {

  /**
   * The estimated heap a key's limiter holds with leases on, beyond a per-call key's
   * ({@code TrackedKeys}), while it is cold: this object (about 168 bytes: 12 references, 13 longs,
   * 4 booleans; 184 before its rate moved to {@link SpendRate}, which the estimate still assumes),
   * its {@code watched} flag and the supplier of its leases (about 40), counted from their fields on
   * a 64-bit JVM with compressed references (not measured); so that a rule's key budget bounds leased
   * keys too. A hot key holds besides its store's leases, the lease in hand, the store's answer and
   * its {@link SpendRate} (about 550 bytes more, not in the budget): a key is hot only while
   * an instance asks it 8 permits per lease validity or more, so an instance serving R calls per
   * second holds at most R / 800 hot keys of a rule whose validity is 10 ms, and never more than
   * the table's 10,000 keys.
   */
  public static final long KEY_BYTES = 224;

  /** The bit of a token of a permit spent from a lease; the lease's id is in the lower bits. */
  static final long LEASE_TOKEN = 1L << 62;
  private static final long ID_MASK = LEASE_TOKEN - 1;
  /** The permits left of a closed lease. */
  static final long CLOSED = Lease.CLOSED;
  /** Round trips one call waits for before it asks the store for its own permits alone. */
  private static final int MAX_ROUND_TRIPS = 2;
  /** The smallest lease that is renewed ahead of time; smaller ones are one call's permits or so. */
  static final long AHEAD_FROM = Lease.AHEAD_FROM;
  /**
   * Permits within one validity that make a cold limiter hot: twice {@link #AHEAD_FROM}, so that a
   * block sized for half a validity at that rate is renewed ahead. Below it, a lease serves too few
   * calls to pay for its bookkeeping (measured: 10^4 uniformly random keys, leased, ran 18-36 %
   * slower than per call; see docs/cluster-leases.md).
   */
  static final long HOT_PERMITS = 2 * AHEAD_FROM;
  /** How much larger than the current lease the next one may be. */
  private static final long GROWTH = 4;
  private static final long MIN_VALID_NANOS = TimeUnit.MILLISECONDS.toNanos(5);
  private static final long MAX_VALID_NANOS = TimeUnit.SECONDS.toNanos(10);
  /**
   * The span of the block cap of long windows ({@link #maxBlock}): a block is at most what the
   * limit's count, spread evenly over its interval, allows in this span (the longest validity).
   */
  static final long STRAND_SPAN_NANOS = MAX_VALID_NANOS;
  /** The least time a refusal of the store is kept locally for (when its retry-after is longer). */
  private static final long MIN_REFUSAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private static final VarHandle PENDING;
  private static final VarHandle CURRENT;
  private static final VarHandle NEXT;
  private static final VarHandle COLD_SINCE;
  private static final VarHandle COLD_PERMITS;
  private static final VarHandle HEATED;
  private static final VarHandle LEASES;
  private static final VarHandle UNSETTLED;
  private static final VarHandle IDS;
  private static final VarHandle GRANTED;
  private static final VarHandle UNSPENT;
  private static final VarHandle UNSERVED;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      PENDING = lookup.findVarHandle(LeasedFlowLimiter.class, "pending", RoundTrip.class);
      CURRENT = lookup.findVarHandle(LeasedFlowLimiter.class, "current", Lease.class);
      NEXT = lookup.findVarHandle(LeasedFlowLimiter.class, "next", Lease.class);
      COLD_SINCE = lookup.findVarHandle(LeasedFlowLimiter.class, "coldSince", long.class);
      COLD_PERMITS = lookup.findVarHandle(LeasedFlowLimiter.class, "coldPermits", long.class);
      HEATED = lookup.findVarHandle(LeasedFlowLimiter.class, "heated", boolean.class);
      LEASES = lookup.findVarHandle(LeasedFlowLimiter.class, "leases", ClusterLeases.class);
      UNSETTLED = lookup.findVarHandle(LeasedFlowLimiter.class, "unsettled", Settlement.class);
      IDS = lookup.findVarHandle(LeasedFlowLimiter.class, "ids", long.class);
      GRANTED = lookup.findVarHandle(LeasedFlowLimiter.class, "granted", long.class);
      UNSPENT = lookup.findVarHandle(LeasedFlowLimiter.class, "unspent", long.class);
      UNSERVED = lookup.findVarHandle(LeasedFlowLimiter.class, "unservedPermits", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final ClusterGuard guard;
  /** Makes {@link #leases} when this limiter first turns hot; null when the store cannot lease. */
  private final Supplier<@Nullable ClusterLeases> leasesOf;
  /** The store's leases of this limit: made when this limiter first turns hot, so that a cold key holds none. */
  private volatile @Nullable ClusterLeases leases;
  /** Set when {@link #leasesOf} made nothing (or threw): this limiter stays cold. */
  private volatile boolean cannotLease;
  /** Per-call decisions and the fallback. */
  final ClusterFlowLimiter perCall;
  private final EngineClock clock;
  /** Permits per interval: {@code floor(count)}. */
  final long limit;
  final long maxBlock;
  final long validNanos;
  private final long intervalNanos;
  /**
   * The longest a refusal of the store is kept locally: a lease's validity, at least
   * {@link #MIN_REFUSAL_NANOS}. A store's retry-after may be hours for a daily quota; asking again
   * after this long instead costs one round trip per this span and instance, and lets a store that
   * lost its counts (restarted empty) admit again as soon as a per-call decision would.
   */
  private final long refusalNanos;

  private volatile Lease current = Lease.NONE;
  /** Debts of settled calls the leases in hand could not cover: the next lease pays them first. */
  private final UnsentDebt owed = new UnsentDebt();
  /** A lease renewed ahead of time while {@link #current} still had permits: spent once that one is. */
  private volatile @Nullable Lease next;
  @SuppressWarnings("unused") // through PENDING
  private volatile @Nullable RoundTrip pending;
  private volatile @Nullable Refusal refusal;
  /** A settlement no request has carried yet; through {@link #UNSETTLED}. */
  @SuppressWarnings("unused")
  private volatile @Nullable Settlement unsettled;
  /** The last lease's id; through {@link #IDS}. */
  @SuppressWarnings("unused")
  private volatile long ids;
  /** The reading of the call that handed this limiter's renewal to the {@link LeaseRenewer}. */
  private volatile long renewWantedAt;
  /** Whether the guard's timer holds a task for this limiter; set by {@link LeaseTimer} only. */
  final AtomicBoolean watched = new AtomicBoolean();
  /** Permits granted in every lease installed so far; through {@link #GRANTED}. */
  @SuppressWarnings("unused")
  private volatile long granted;
  /** Permits of closed leases that were not spent; through {@link #UNSPENT}. */
  @SuppressWarnings("unused")
  private volatile long unspent;
  /**
   * Permits of calls the leases did not serve: refused because the store refused (here or in a
   * lease), or decided by the fallback because it could not answer. With the permits spent, what
   * this instance asks for, so that its demand ({@link #demand()}) is not underestimated while the
   * limit is short, and a busy limiter stays hot ({@link #measure}) while the store fails.
   */
  @SuppressWarnings("unused") // through UNSERVED
  private volatile long unservedPermits;
  /**
   * Spending rate, measured at each request ({@link #measure}); made at the first request, so that a
   * key that never turned hot holds none. Plain: written by the one thread that sends a request (see
   * {@link #measure}), read there and by the thread that installs its answer, after it.
   */
  private @Nullable SpendRate spending;
  /** The store's last fair share for this instance; see {@link ClusterLease#share()}. */
  private volatile long share = Long.MAX_VALUE;
  /** Whether calls the lease cannot serve start lease round trips (hot) or are decided per call (cold). */
  private volatile boolean hot;
  /**
   * Whether the store's last answer left fewer permits free than a {@link #scarceBlock}, or refused:
   * then requests ask for at least that block, so that a saturated limit is leased in blocks, not
   * in the one or two permits a window or a bucket frees at a time (a round trip per call, as
   * measured on a saturated key before). Permits not leased meanwhile stay free in the store (a
   * window frees them as it slides; a bucket keeps them up to its capacity, at least a count, above
   * the block), so this changes when they are spent, not how many; callers meanwhile are refused
   * here with the store's retry-after, the time until a block is free. When that is longer than a
   * refusal is kept here (the last permits of a daily quota), the next request asks for what is free.
   */
  private volatile boolean scarce;
  /** Set when this limiter turns hot, cleared by the next request's {@link #measure}. */
  private volatile boolean heated;
  /** The start of the current span of a cold limiter ({@link #heats}); through {@link #COLD_SINCE}. */
  @SuppressWarnings("unused")
  private volatile long coldSince;
  /** Permits asked in the current span of a cold limiter; through {@link #COLD_PERMITS}. */
  @SuppressWarnings("unused")
  private volatile long coldPermits;

  /** A refusal of the store kept here: refusing {@code until}, each call told to retry at {@code retryAt}. */
  private record Refusal(long until, long retryAt) {
  }

  record Settlement(ClusterLease lease, long unused) {
  }

  /**
   * @param count the rule's (or the key's) count per {@code intervalNanos}
   * @param perCall the same rule's per-call limiter: asked for what leases cannot serve, and for fallbacks
   */
  LeasedFlowLimiter(ClusterGuard guard, Supplier<@Nullable ClusterLeases> leasesOf, ClusterFlowLimiter perCall, double count,
      long intervalNanos) {
    this.guard = guard;
    this.leasesOf = leasesOf;
    this.perCall = perCall;
    this.clock = guard.clock;
    this.limit = (long) Math.floor(count);
    this.maxBlock = maxBlock(limit, intervalNanos);
    this.intervalNanos = intervalNanos;
    this.validNanos = validity(intervalNanos);
    this.refusalNanos = Math.max(MIN_REFUSAL_NANOS, validNanos);
    this.coldSince = clock.read();
  }

  /**
   * The limiter of a rule or key whose leases {@code leasesOf} makes (when it first turns hot; a
   * supplier that answers null or throws, a store that cannot lease, leaves it deciding per call),
   * or {@code perCall} itself when the count is below 1 (nothing to lease: the store refuses per call).
   */
  public static FlowLimiter of(ClusterGuard guard, Supplier<@Nullable ClusterLeases> leasesOf,
      ClusterFlowLimiter perCall, double count, long intervalNanos) {
    if (count < 1) {
      return perCall;
    }
    return new LeasedFlowLimiter(guard, leasesOf, perCall, count, intervalNanos);
  }

  /**
   * The largest block of a limit of {@code limit} permits per {@code intervalNanos}:
   * {@code floor(limit / 16)}, and {@code floor(limit * 10 s / interval)} if smaller (windows over
   * 160 s: a day's block is at most 1/8640 of its count, what the count spread evenly over the day
   * allows in one lease validity of 10 s); at least 1. See the class comment, <i>An instance that
   * dies</i>, for why long windows need the second cap.
   */
  static long maxBlock(long limit, long intervalNanos) {
    long spread = BigInteger.valueOf(limit).multiply(BigInteger.valueOf(STRAND_SPAN_NANOS))
        .divide(BigInteger.valueOf(Math.max(1, intervalNanos))).min(BigInteger.valueOf(limit)).longValueExact();
    return Math.max(1, Math.min(limit / 16, spread));
  }

  /**
   * The longest a lease of a limit of {@code intervalNanos} may be spent from: a hundredth of the
   * interval, at least 5 ms (a lease must outlive its round trip) and at most 10 s (what an instance
   * that dies strands), and at most a quarter of the interval.
   */
  static long validity(long intervalNanos) {
    long valid = Math.min(MAX_VALID_NANOS, Math.max(MIN_VALID_NANOS, intervalNanos / 100));
    return Math.max(1, Math.min(valid, intervalNanos / 4));
  }

  @Override
  public long tryAcquire(int permits, long now) {
    return acquire(permits, now, true);
  }

  @Override
  public long tryAcquireWithoutWaiting(int permits, long now) {
    return acquire(permits, now, false);
  }

  private long acquire(int permits, long now, boolean waits) {
    long spent = spend(permits, now);
    return spent != AGAIN ? spent : slow(permits, now, waits);
  }

  /**
   * Spends {@code permits} from the current lease while it is valid at {@code now}, renewing ahead
   * when it runs low; returns the call's token, or {@link #AGAIN} when the lease cannot serve it.
   */
  private long spend(int permits, long now) {
    Lease lease = current;
    if (now - lease.endsAt < 0) {
      long left = lease.get();
      while (left >= permits) {
        if (lease.compareAndSet(left, left - permits)) {
          guard.admitted.increment();
          if (lease.ahead && (left - permits <= lease.lowWater || now - lease.renewAt >= 0)) {
            renewAhead(lease, now);
          }
          return LEASE_TOKEN | lease.id;
        }
        left = lease.get();
      }
    }
    return AGAIN;
  }

  /**
   * The lease cannot serve the call: the lease renewed ahead, a refusal of the store, a round trip
   * (at most {@link #MAX_ROUND_TRIPS}), or the per-call path.
   */
  private long slow(int permits, long now, boolean waits) {
    if (permits > maxBlock) {
      // Never leased: no lease is larger than a block (what a dying instance strands is bounded by
      // blocks). Decided alone by the store on the same state; a call of more than the count is
      // refused there, or the fallback decides.
      return perCallPaying(permits, now, waits);
    }
    if (!hot && !heats(permits, now)) {
      long decided = perCallPaying(permits, now, waits);
      if (decided < 0) {
        heat(); // the limit is short: leased, a refusal is kept here, and requests carry this instance's demand
      }
      return decided;
    }
    for (int trip = 0; ; trip++) {
      long spent = promoteAndSpend(permits, now);
      if (spent != AGAIN) {
        return spent;
      }
      if (trip == MAX_ROUND_TRIPS) {
        return perCallPaying(permits, now, waits);
      }
      Refusal refused = refusal;
      if (refused != null && now - refused.until < 0) {
        guard.blocked.increment();
        UNSERVED.getAndAdd(this, (long) permits);
        return refused(refused.retryAt - now); // the store's retry-after, though it is asked again sooner
      }
      RoundTrip joined = (RoundTrip) PENDING.getVolatile(this);
      if (joined != null && (joined.probe || guard.failing(now))) {
        // A probe of an open breaker, or a round trip after failures: only its own call waits for it,
        // as with per-call decisions, so that a store that hangs holds one call per round trip.
        return fallBack(joined.probe ? FallbackReason.BREAKER_OPEN : FallbackReason.SATURATED, permits, now, waits);
      }
      if (joined == null) {
        int entered = guard.enter(now);
        if (entered < 0) {
          return fallBack(entered == ClusterGuard.OPEN ? FallbackReason.BREAKER_OPEN : FallbackReason.SATURATED,
              permits, now, waits);
        }
        RoundTrip started = new RoundTrip(this, now, permits, entered == ClusterGuard.PROBE);
        if (PENDING.compareAndSet(this, null, started)) {
          send(started, false);
          joined = started;
        } else {
          guard.untrack();
          if (started.probe) {
            guard.probeHandedBack(now);
          }
          continue; // another call started one meanwhile (or it ended already): look again
        }
      }
      long result = await(joined, permits, now, waits);
      if (result != AGAIN) {
        return result;
      }
    }
  }

  /**
   * Counts a cold limiter's call of {@code permits} at {@code now} in the current span of one
   * validity, starting a new span when that one has ended; returns whether the limiter is hot now
   * (the span holds {@link #HOT_PERMITS}). A late reading ({@code now} before the span's start)
   * counts in the current span. Two threads may both start a new span and lose each other's counts:
   * that delays leasing by a span at most, and changes nothing the store admits.
   */
  private boolean heats(int permits, long now) {
    long since = (long) COLD_SINCE.getVolatile(this);
    if (now - since >= validNanos && COLD_SINCE.compareAndSet(this, since, now)) {
      COLD_PERMITS.setVolatile(this, 0L);
    }
    long asked = (long) COLD_PERMITS.getAndAdd(this, (long) permits) + permits;
    return asked >= HOT_PERMITS && heat();
  }

  /** Turns this limiter hot, making its leases first; false (and cold for good) when the store cannot lease. */
  private boolean heat() {
    if (!canLease()) {
      return false;
    }
    heated = true; // before hot: the request a call sends once it sees hot sees heated too
    hot = true;
    return true;
  }

  private boolean canLease() {
    if (leases != null) {
      return true;
    }
    if (cannotLease) {
      return false;
    }
    ClusterLeases made;
    try {
      made = leasesOf.get();
    } catch (RuntimeException e) {
      made = null;
    }
    if (made == null) {
      cannotLease = true;
      return false;
    }
    LEASES.compareAndSet(this, null, made); // two threads may make one each: one is kept, the other never used
    return true;
  }

  /**
   * Spends from the current lease, after making the lease renewed ahead (if any) the current one,
   * closing the one it follows (whose rest is settled); {@link #AGAIN} when neither can serve the call.
   */
  private long promoteAndSpend(int permits, long now) {
    Lease following = next;
    if (following != null) {
      Lease spent = current;
      if (spent != following && CURRENT.compareAndSet(this, spent, following)) {
        NEXT.compareAndSet(this, following, null);
        settle(spent);
      }
    }
    return spend(permits, now);
  }

  /** {@link #await}: the round trip brought a lease (or nothing to refuse for): look at the lease again. */
  private static final long AGAIN = Long.MIN_VALUE;

  /** Waits for {@code trip}; a decision, or {@link #AGAIN}. */
  private long await(RoundTrip trip, int permits, long now, boolean waits) {
    ClusterLease answer;
    try {
      answer = trip.installed.get(guard.timeoutNanos(), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      trip.timeOut(); // no-op unless its own deadline has passed, which it has when it started before this wait
      return fallBack(FallbackReason.TIMEOUT, permits, now, waits);
    } catch (ExecutionException e) {
      return fallBack(e.getCause() instanceof RoundTrip.Unanswered unanswered ? unanswered.reason : FallbackReason.ERROR,
          permits, now, waits);
    } catch (CancellationException e) {
      return fallBack(FallbackReason.ERROR, permits, now, waits);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // not the store's fault: the round trip goes on for the others
      return fallBack(FallbackReason.ERROR, permits, now, waits);
    }
    if (answer != null && answer.refused()) {
      guard.blocked.increment();
      UNSERVED.getAndAdd(this, (long) permits);
      return refused(TimeUnit.MILLISECONDS.toNanos(answer.retryAfterMillis()));
    }
    return AGAIN;
  }

  private long fallBack(FallbackReason reason, int permits, long now, boolean waits) {
    guard.fellBack(reason, now);
    UNSERVED.getAndAdd(this, (long) permits);
    return perCall.fallBack(permits, now, waits);
  }

  /**
   * Starts the next round trip without waiting for it, once per lease, when none is in flight: on the
   * engine's renewal thread ({@link LeaseRenewer}) when it has one (real time), else on this call's.
   */
  private void renewAhead(Lease lease, long now) {
    if (PENDING.getVolatile(this) != null || next != null || !lease.claimRenewal()) {
      return;
    }
    LeaseRenewer renewer = guard.renewer;
    if (renewer == null) {
      renewNow(now, now);
      return;
    }
    renewWantedAt = now;
    renewer.renew(this);
  }

  /**
   * The renewal thread's turn ({@link LeaseRenewer}): sends the renewal a call asked for, unless a
   * round trip is in flight or a lease renewed ahead waits already (a call that found the lease spent
   * meanwhile sent its own: that one renews).
   */
  void renewQueued() {
    if (PENDING.getVolatile(this) != null || next != null) {
      return;
    }
    renewNow(renewWantedAt, clock.read());
  }

  /** Sends a renewal ahead wanted at {@code wantedAt}, stamped {@code now}. */
  private void renewNow(long wantedAt, long now) {
    int entered = guard.enter(now);
    if (entered < 0) {
      return; // the breaker is open or the store busy: the lease ends, then the fallback decides
    }
    RoundTrip started = new RoundTrip(this, now, 1, entered == ClusterGuard.PROBE);
    started.ahead = true;
    started.wantedAt = wantedAt;
    if (PENDING.compareAndSet(this, null, started)) {
      send(started, true);
    } else {
      guard.untrack();
      if (started.probe) {
        guard.probeHandedBack(now);
      }
    }
  }

  /** Sends the round trip {@code trip} holds the place of (in {@link #pending} and in the guard). */
  private void send(RoundTrip trip, boolean ahead) {
    settleIfEnded(current, trip.sentAt);
    Lease following = next;
    if (following != null && settleIfEnded(following, trip.sentAt)) {
      NEXT.compareAndSet(this, following, null);
    }
    Settlement settlement = (Settlement) UNSETTLED.getAndSet(this, null);
    measure(trip.sentAt);
    long minimum = scarce ? Math.max(trip.minimum, scarceBlock()) : trip.minimum;
    trip.askedBlock = minimum > trip.minimum;
    long wanted = Math.max(minimum, nextBlock());
    long demand = demand();
    CompletableFuture<ClusterLease> future;
    try {
      LeaseRequest request = new LeaseRequest(wanted, minimum, validNanos, ahead, demand,
          settlement == null ? null : settlement.lease, settlement == null ? 0 : settlement.unused);
      guard.leaseRequests.increment();
      future = Objects.requireNonNull(leases, "leased while hot only").lease(request);
      if (settlement != null) {
        guard.returnedPermits.add(settlement.unused);
      }
    } catch (RuntimeException | Error e) {
      guard.untrack();
      requeue(settlement);
      trip.failed(e);
      return;
    }
    trip.settlement = settlement;
    trip.future = future;
    guard.track(future);
    future.whenComplete(trip);
  }

  /**
   * Measures this instance's rate of spending at a request: the permits spent (and refused for want
   * of a lease) since the last request over the time since, at {@code now}. Runs in {@link #send} only, which one thread at a
   * time runs (the one that set {@link #pending}).
   */
  private void measure(long now) {
    long inHand = Math.max(0, current.get());
    Lease following = next;
    if (following != null) {
      inHand += Math.max(0, following.get());
    }
    long spentTotal = granted - inHand - unspent + unservedPermits;
    // The first request after turning hot only starts a measurement: the calls decided per call
    // before it are not in spentTotal, so a rate over the time since the last request (made before
    // turning cold) would say cold at once. Its block is sized by the old rate, then grows 4x per lease.
    boolean fresh = heated && HEATED.compareAndSet(this, true, false);
    SpendRate rates = spending;
    if (rates == null) {
      rates = new SpendRate(validNanos);
      spending = rates;
    }
    if (rates.measure(now, spentTotal, fresh) && rates.sample() * validNanos < AHEAD_FROM && refusal == null) {
      // A block for half a validity would be below 2: lease no more until a span is hot again.
      // This round trip still goes (its call waits for it); the calls after it are decided per call.
      // Not while the store refuses (refusal is cleared by the next grant): a short limit stays
      // leased, so that refusals stay local and requests carry this instance's demand for the fair
      // shares (per-call decisions carry none: a slow instance decided per call would be starved
      // by a busy one's leases).
      COLD_PERMITS.setVolatile(this, 0L);
      COLD_SINCE.setVolatile(this, now);
      hot = false;
    }
  }

  /**
   * The size of the next block: what the last measured rate of spending ({@link SpendRate#sample})
   * uses in half a lease's validity (or longer while round trips are slow: {@link #coverSpan}),
   * at most {@link #GROWTH} times the current lease (at least 1), and at most {@link #maxBlock}; and
   * at least the current lease when that one was spent to its last permit before its end.
   *
   * <p>Why the floor: a lease that runs out before its renewal arrives makes the calls wait for the
   * round trip, so fewer permits are spent meanwhile, the rate measured over that time is lower, the
   * next block smaller, and it runs out sooner: under load (64 threads on 2 cores, round trips of
   * milliseconds) that spiral held a whole measured iteration at a tenth of the throughput. A lease
   * spent to its end shows a demand of at least its size, whatever the rate measured says.
   */
  long nextBlock() {
    double wanted = Math.ceil(sample() * coverSpan());
    Lease spent = current;
    long next = (long) Math.min(wanted, (double) Math.max(1, spent.size) * GROWTH);
    if (spent.get() == 0) {
      next = Math.max(next, spent.size);
    }
    return Math.max(1, Math.min(next, maxBlock));
  }

  /**
   * The time a block is sized to last at the measured rate: half a validity, or twice the high
   * quantile of the recent round trips ({@link RoundTripTimes#high}) if longer, but at most a
   * validity. A block must outlast its own renewal's round trip: renewed once what is left would last
   * a round trip's high quantile twice over ({@link Lease}), a block smaller than that would be
   * renewed at its first spend and run dry before the answer.
   */
  private long coverSpan() {
    return Math.min(validNanos, Math.max(validNanos / 2, 2 * guard.roundTrips.high()));
  }

  /**
   * The fewest permits worth a round trip while the limit is scarce: {@link #maxBlock}; none (1)
   * while the store caps this instance at a fair share. Measured with fair shares in force (3
   * instances at 70/20/10 % of twice a window's count): blocks of a sixteenth of the share took the
   * same round trips as without, and the busiest instance got 83 % of its share instead of 100 %
   * (asking for a block, it waited for its own older leases to leave the window). So only limits
   * without fair shares (param-flow keys, whose token bucket the store shares without demands) wait
   * for a block.
   */
  private long scarceBlock() {
    return share == Long.MAX_VALUE ? maxBlock : 1;
  }

  /** The last measured rate of spending, permits per nanosecond; 0 before the first request. */
  private double sample() {
    SpendRate rates = spending;
    return rates == null ? 0 : rates.sample();
  }

  /** Permits per interval at the measured rate of spending; 0 when unknown. */
  private long demand() {
    return (long) Math.min((double) limit * 4, Math.ceil(sample() * intervalNanos));
  }

  /** {@code trip} is over: the next call may start one; on the thread that ended it. */
  void ended(RoundTrip trip) {
    PENDING.compareAndSet(this, trip, null);
  }

  /** Makes the store's answer to {@code trip} the current lease, or the refusal; on the store's thread. */
  void install(RoundTrip trip, ClusterLease answer) {
    share = answer.share();
    // A block that would take longer than a refusal is kept here to be free (the end of a daily
    // quota's permits, say) is not waited for: the next request asks for what is free.
    scarce = answer.refused()
        ? !(trip.askedBlock && TimeUnit.MILLISECONDS.toNanos(answer.retryAfterMillis()) > refusalNanos)
        : answer.remaining() < scarceBlock();
    if (answer.granted() > 0) {
      guard.leasedPermits.add(answer.granted());
      GRANTED.getAndAdd(this, answer.granted());
      long valid = Math.min(answer.validNanos(), validNanos);
      long at = clock.read();
      guard.roundTrips.record(at - trip.wantedAt);
      // Renewed once what is left would last twice the round trip's high quantile at the measured rate.
      long cover = 2 * guard.roundTrips.high();
      SpendRate rates = spending;
      long coverPermits = (long) Math.min((double) Long.MAX_VALUE / 2, Math.ceil((rates == null ? 0 : rates.rate()) * cover));
      Lease fresh = new Lease(((long) IDS.getAndAdd(this, 1L) + 1) & ID_MASK, answer, trip.sentAt, valid,
          coverPermits, cover);
      payOwed(fresh); // before any call can spend from it
      refusal = null;
      Lease old = current;
      if (trip.ahead && old.get() > 0 && at - old.endsAt < 0) {
        // Renewed ahead while the current lease still serves: it follows once that one is spent.
        Lease stale = (Lease) NEXT.getAndSet(this, fresh);
        if (stale != null) {
          settle(stale);
        }
      } else {
        Lease stale = (Lease) NEXT.getAndSet(this, null);
        current = fresh;
        settle(old);
        if (stale != null) {
          settle(stale);
        }
      }
      if (answer.granted() > trip.minimum) {
        guard.timer.watch(this, valid);
      }
    } else if (answer.refused()) {
      long at = clock.read();
      long retry = TimeUnit.MILLISECONDS.toNanos(answer.retryAfterMillis());
      refusal = new Refusal(at + Math.min(retry, refusalNanos), at + retry);
    }
  }

  /** Settles {@code lease} if it has ended at {@code now}, so that the request sent now carries it; whether it had. */
  private boolean settleIfEnded(Lease lease, long now) {
    if (lease.grant != null && now - lease.endsAt >= 0) {
      settle(lease);
      return true;
    }
    return false;
  }

  /** Closes {@code lease} and settles what it did not spend: with the next request, else given back. */
  private void settle(Lease lease) {
    long unused = lease.close();
    if (unused > 0 && lease.grant != null) {
      UNSPENT.getAndAdd(this, unused);
      requeue(new Settlement(lease.grant, unused));
    }
  }

  void requeue(@Nullable Settlement settlement) {
    if (settlement != null && !UNSETTLED.compareAndSet(this, null, settlement)) {
      giveBack(settlement); // one is queued already: this one goes now
    }
  }

  void giveBack(Settlement settlement) {
    if (!guard.closed()) {
      return; // the store fails: the lease ends on its own there
    }
    try {
      ClusterLeases store = leases;
      if (store != null) { // a settlement exists only after a lease, which made the leases
        store.giveBack(settlement.lease, settlement.unused);
      }
      guard.returnedPermits.add(settlement.unused);
    } catch (RuntimeException | Error e) {
      // best effort: the lease ends on its own in the store
    }
  }

  /**
   * The timer's visit ({@link LeaseTimer}): ends the lease if its time is over and gives back what it
   * did not spend, gives back a settlement no request took, and times out a round trip nobody waits
   * for. Returns the nanoseconds until the next visit is needed, or -1 when none is.
   */
  long sweep() {
    long now = clock.read();
    long visit = -1;
    RoundTrip trip = (RoundTrip) PENDING.getVolatile(this);
    if (trip != null) {
      if (!trip.timeOut()) {
        visit = guard.timeoutNanos();
      }
    }
    for (Lease lease : new Lease[] {current, this.next}) {
      if (lease != null && lease.grant != null && lease.get() > 0) {
        long left = lease.endsAt - now;
        if (left > 0) {
          visit = visit < 0 ? left : Math.min(visit, left);
        } else {
          NEXT.compareAndSet(this, lease, null);
          settle(lease);
        }
      }
    }
    if (PENDING.getVolatile(this) == null) {
      Settlement settlement = (Settlement) UNSETTLED.getAndSet(this, null);
      if (settlement != null) {
        giveBack(settlement);
      }
    } else if (visit < 0) {
      visit = guard.timeoutNanos();
    }
    return visit;
  }

  /** Nanoseconds until {@link #sweep} has something to do, or -1 when nothing; changes nothing. */
  long nextVisit() {
    if (PENDING.getVolatile(this) != null) {
      return guard.timeoutNanos();
    }
    if (unsettled != null) {
      return 0;
    }
    long soonest = -1;
    for (Lease lease : new Lease[] {current, next}) {
      if (lease != null && lease.grant != null && lease.get() > 0) {
        long left = Math.max(0, lease.endsAt - clock.read());
        soonest = soonest < 0 ? left : Math.min(soonest, left);
      }
    }
    return soonest;
  }

  /** Closes the current lease and gives back every permit it and the queue hold; the engine is closing. */
  void giveBackAll() {
    Lease following = (Lease) NEXT.getAndSet(this, null);
    if (following != null) {
      settle(following);
    }
    settle(current);
    Settlement settlement = (Settlement) UNSETTLED.getAndSet(this, null);
    if (settlement != null) {
      giveBack(settlement);
    }
  }

  @Override
  public void refund(int permits, long token) {
    if (ClusterFlowLimiter.storeAdmitted(token)) {
      return;
    }
    if ((token & LEASE_TOKEN) != 0) {
      Lease lease = current;
      if (lease.id == (token & ID_MASK)) {
        long left = lease.get();
        while (left >= 0 && !lease.compareAndSet(left, left + permits)) {
          left = lease.get();
        }
      }
      return; // a closed lease keeps the permit counted in the store
    }
    perCall.refund(permits, token);
  }

  /*
   * Settling (Entry.settle). A call spent from a lease settles on the leases in hand, at once and
   * with no command of its own: a refund returns its permits to its own lease while that lease is
   * open (a lease closed since keeps them spent: the store counted them, the safe side); a debt is
   * taken from the current lease, then from the one renewed ahead, and what they cannot cover is
   * owed: the next lease pays it before any call spends from it (payOwed), so the calls after the
   * debt wait for permits the store has counted; a call decided per call meanwhile first charges
   * the store what is still owed (perCallPaying: one settlement, only then). Either way the net reaches the store with the
   * lease's settlement: what a closed lease did not spend is given back with the next request, so a
   * refund raises that and a debt lowers it. So the store's count covers every settled cost, but the
   * debt owed while no lease pays it: one window's count at most (owed is capped there: a window
   * holds no more), and normally one call's excess. A call decided per call (more permits than a
   * block, a cold limiter, the fallback) settles as per-call mode does (ClusterFlowLimiter).
   */
  @Override
  public void settle(long delta, long token, long now) {
    if (ClusterFlowLimiter.storeAdmitted(token) || (token & LEASE_TOKEN) == 0) {
      perCall.settle(delta, token, now);
      return;
    }
    if (delta < 0) {
      long id = token & ID_MASK;
      Lease lease = current;
      if (lease.id != id) {
        Lease following = next;
        lease = following != null && following.id == id ? following : null;
      }
      if (lease != null) {
        long left = lease.get();
        while (left >= 0 && !lease.compareAndSet(left, Math.min(lease.size, UnsentDebt.saturatedSum(left, -delta)))) {
          left = lease.get();
        }
      }
      return;
    }
    long rest = takeFrom(current, delta);
    Lease following = next;
    if (rest > 0 && following != null) {
      rest = takeFrom(following, rest);
    }
    if (rest > 0) {
      owed.add(rest, Math.max(1, limit));
    }
  }

  /** Takes up to {@code debt} permits from {@code lease} while it is open; returns what it could not cover. */
  private static long takeFrom(Lease lease, long debt) {
    long left = lease.get();
    while (left > 0) {
      long taken = Math.min(left, debt);
      if (lease.compareAndSet(left, left - taken)) {
        return debt - taken;
      }
      left = lease.get();
    }
    return debt;
  }

  /**
   * Decides a call per call, after charging the store what is owed (one settlement, only when a debt
   * is owed): a call the leases cannot serve must not pass a debt they could not pay.
   */
  private long perCallPaying(int permits, long now, boolean waits) {
    long debt = owed.take();
    if (debt > 0) {
      perCall.charge(debt, now);
    }
    return perCall.acquire(permits, now, waits);
  }

  /** Pays what is owed from {@code fresh}, a lease no call can spend from yet. */
  private void payOwed(Lease fresh) {
    long debt = owed.take();
    if (debt > 0) {
      long rest = takeFrom(fresh, debt);
      if (rest > 0) {
        owed.add(rest, Math.max(1, limit));
      }
    }
  }

  /** Debts the leases have not paid yet; for tests. */
  long owed() {
    return owed.get();
  }

  /** The permits left in the current lease, {@code -1} when it is closed; for tests. */
  long leftInLease() {
    return current.get();
  }

  /** The lease calls spend from; for tests. */
  Lease currentLease() {
    return current;
  }

  /** The lease renewed ahead that waits for the current one to be spent; for tests. */
  @Nullable Lease nextLease() {
    return next;
  }

  /** The current lease's store answer; for tests. */
  @Nullable ClusterLease currentGrant() {
    return current.grant;
  }

  /** Whether this limiter leases now ({@link #heats}); for tests. */
  boolean hot() {
    return hot;
  }

  /** The store's last fair share for this instance; for tests. */
  long share() {
    return share;
  }
}
