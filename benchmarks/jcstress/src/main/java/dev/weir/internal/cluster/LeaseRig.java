package dev.weir.internal.cluster;

import dev.weir.internal.time.EngineClock;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One {@link LeasedFlowLimiter} of a {@link LeaseStore} on an engine clock whose ticker reads
 * {@link #present} (set by the test, never moved back), with the set-ups the lease stress tests
 * start from, each reached through the limiter's own calls and checked (a set-up that no longer
 * reaches its state, because the protocol changed, throws: jcstress reports an error, not a pass).
 *
 * <p>The lease in hand and the one renewed ahead are private fields of the limiter; they are read
 * here through a private lookup (the tests run on the class path), only to name the lease a test
 * races on and to check the set-up, never to change them.
 */
final class LeaseRig {

  /** The base instant: 10^6 s. */
  static final long T = 1_000_000L * 1_000_000_000L;
  static final long MS = 1_000_000L;
  /** Within the first lease of a set-up made at {@link #T}. */
  static final long EARLY = T + MS;
  /** After the end of a lease sent at {@link #T}. */
  static final long LATE = T + LeaseStore.VALID + MS;

  private static final VarHandle CURRENT;
  private static final VarHandle NEXT;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.privateLookupIn(LeasedFlowLimiter.class, MethodHandles.lookup());
      CURRENT = lookup.findVarHandle(LeasedFlowLimiter.class, "current", Lease.class);
      NEXT = lookup.findVarHandle(LeasedFlowLimiter.class, "next", Lease.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final LeaseStore store = new LeaseStore();
  volatile long present = T;
  final LeasedFlowLimiter limiter = store.limiter(new EngineClock(() -> present, nanos -> { }), T);
  /** Permits the set-up spent from leases (admissions with a lease token). */
  long setupSpends;

  /** The lease calls spend from now. */
  Lease current() {
    return (Lease) CURRENT.getVolatile(limiter);
  }

  /** The lease renewed ahead of time, or null. */
  Lease next() {
    return (Lease) NEXT.getVolatile(limiter);
  }

  /** Whether {@code token} is an admission spent from a lease (not the store's per-call or the fallback's). */
  static boolean fromLease(long token) {
    return token >= 0 && token != ClusterFlowLimiter.STORE_TOKEN && (token & LeasedFlowLimiter.LEASE_TOKEN) != 0;
  }

  /** Whether {@code token} was spent from the lease with id {@code id}. */
  static boolean fromLease(long token, long id) {
    return fromLease(token) && (token & (LeasedFlowLimiter.LEASE_TOKEN - 1)) == id;
  }

  /**
   * A hot limiter holding one lease (id 1, the store's grant 1) of 6 permits sent at {@link #T}, its
   * renewal ahead already spent, nothing renewed ahead, no round trip in flight and nothing to settle,
   * with {@code 6 - left} permits spent by the call whose token this returns. How: a cold call of 6
   * (decided per call), then a call of 6 that turns the limiter hot (12 permits in the span), leases
   * 6 and spends them; its renewal ahead is answered "ask later"; then {@code left} are refunded.
   */
  long leaseOfSix(int left) {
    store.askLater = true;
    check(limiter.tryAcquire(6, T) == ClusterFlowLimiter.STORE_TOKEN, "a cold call is decided per call");
    long token = limiter.tryAcquire(6, T);
    check(fromLease(token, 1), "the second call leases and spends lease 1");
    store.askLater = false;
    limiter.refund(left, token);
    check(current().id == 1 && current().get() == left && next() == null && limiter.hot(),
        "one lease of " + left + " left in hand");
    setupSpends = 6 - left;
    return token;
  }

  /**
   * A hot limiter spending from lease 3 (4 permits sent at T + 1 ms, 2 left) with lease 4 (10
   * permits, sent at T + 2 ms) renewed ahead and waiting in {@code next}; {@link #present} is
   * T + 2 ms. How: a call of 8 at T turns the limiter hot, leases 8 and spends them (lease 1), its
   * renewal ahead brings lease 2 (1 permit, nothing measured yet); at T + 1 ms a call spends it and
   * the next call's request measures 1 permit per ms and brings lease 3 (4: four times lease 2); at
   * T + 2 ms a call leaves lease 3 at half, and its renewal ahead (2 permits per ms: 10 for half a
   * validity) is installed beside it.
   */
  void leaseWithNext() {
    check(fromLease(limiter.tryAcquire(8, T), 1), "a call of 8 turns hot and spends lease 1");
    check(current().id == 2 && current().get() == 1, "lease 2 renewed ahead");
    present = T + MS;
    check(fromLease(limiter.tryAcquire(1, T + MS), 2), "spent from lease 2");
    check(fromLease(limiter.tryAcquire(1, T + MS), 3), "spent from lease 3");
    present = T + 2 * MS;
    check(fromLease(limiter.tryAcquire(1, T + 2 * MS), 3), "spent from lease 3 again");
    Lease following = next();
    check(current().id == 3 && current().get() == 2 && following != null && following.id == 4
        && following.get() == 10 && limiter.hot(), "lease 3 in hand with 2 left, lease 4 of 10 next");
    setupSpends = 8 + 1 + 1 + 1;
  }

  /** A cold limiter whose current span (started at T) holds {@code permits} (fewer than 8), each decided per call. */
  void cold(int permits) {
    check(limiter.tryAcquire(permits, T) == ClusterFlowLimiter.STORE_TOKEN && !limiter.hot(), "decided per call, cold");
  }

  /** Granted permits less those spent from leases and those given back: 0 when every permit is accounted for once. */
  long unaccounted(long actorSpends) {
    return store.grantedPermits.get() - setupSpends - actorSpends - store.givenBackTotal();
  }

  private static void check(boolean condition, String what) {
    if (!condition) {
      throw new IllegalStateException("set-up no longer reaches its state: " + what);
    }
  }
}
