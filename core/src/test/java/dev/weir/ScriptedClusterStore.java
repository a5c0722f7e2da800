package dev.weir;

import dev.weir.cluster.ClusterClient;
import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterLimit;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

/**
 * A stand-in for the cluster store, which is outside Weir (Redis in production): it counts in
 * memory per limit, or fails, throws or never answers, as the test scripts it.
 */
public final class ScriptedClusterStore implements ClusterClient {

  public enum Mode {
    /** Admits while the limit's count holds, refusing with {@link #retryAfterMillis}. */
    COUNT,
    /** Answers with a failed future. */
    FAIL,
    /** Throws from {@code acquire}. */
    THROW,
    /** Returns a future that only the test completes. */
    HANG
  }

  public volatile Mode mode = Mode.COUNT;
  /** Acquires (numbered from 1) that fail whatever the mode. */
  volatile IntPredicate failing = n -> false;
  volatile long retryAfterMillis = 250;
  /** What {@link #liveInstances()} answers, as a store that instances announce themselves to would. */
  public volatile int liveInstances;

  final List<ClusterLimit> limits = new CopyOnWriteArrayList<>();
  public final AtomicInteger acquires = new AtomicInteger();
  public final Queue<CompletableFuture<ClusterDecision>> hanging = new ConcurrentLinkedQueue<>();
  private final Map<List<Object>, long[]> counts = new ConcurrentHashMap<>();

  @Override
  public ClusterCounter counter(ClusterLimit limit) {
    limits.add(limit);
    long[] count = counts.computeIfAbsent(List.of(limit.resource(), limit.scope(), limit.interval()), key -> new long[1]);
    return settlingCounter(List.of(count), permits -> {
      int n = acquires.incrementAndGet();
      if (failing.test(n)) {
        return CompletableFuture.failedFuture(new IllegalStateException("store failed acquire " + n));
      }
      return switch (mode) {
        case COUNT -> CompletableFuture.completedFuture(decide(count, limit.count(), permits));
        case FAIL -> CompletableFuture.failedFuture(new IllegalStateException("store down"));
        case THROW -> throw new IllegalStateException("client broken");
        case HANG -> {
          CompletableFuture<ClusterDecision> future = new CompletableFuture<>();
          hanging.add(future);
          yield future;
        }
      };
    });
  }

  /** The per-key limits asked for, in order. */
  public final List<dev.weir.cluster.ClusterKeyLimit> keyLimits = new CopyOnWriteArrayList<>();

  /** Counts each key in memory as {@link Mode#COUNT} counts a limit (no refill), or fails as scripted. */
  @Override
  public ClusterCounter keyCounter(dev.weir.cluster.ClusterKeyLimit limit) {
    keyLimits.add(limit);
    long[] count = counts.computeIfAbsent(List.of(limit.resource(), limit.rule(), limit.key()), key -> new long[1]);
    return settlingCounter(List.of(count), permits -> {
      acquires.incrementAndGet();
      return switch (mode) {
        case COUNT -> CompletableFuture.completedFuture(decide(count, limit.count(), permits));
        case THROW -> throw new IllegalStateException("client broken");
        case HANG -> {
          CompletableFuture<ClusterDecision> future = new CompletableFuture<>();
          hanging.add(future);
          yield future;
        }
        default -> CompletableFuture.failedFuture(new IllegalStateException("store down"));
      };
    });
  }

  /** Whether {@link #counterOfAll} combines limits (else it answers null, as a store that cannot). */
  public volatile boolean combining;
  /** The limits of each combined counter made. */
  public final List<List<ClusterLimit>> combined = new CopyOnWriteArrayList<>();
  /** Round trips of combined counters. */
  final AtomicInteger combinedAcquires = new AtomicInteger();

  /** All or nothing over the limits' in-memory counts, under one lock; refuses with the first that does not fit. */
  @Override
  public ClusterCounter counterOfAll(List<ClusterLimit> limits) {
    if (!combining) {
      return null;
    }
    combined.add(List.copyOf(limits));
    List<long[]> all = limits.stream()
        .map(limit -> counts.computeIfAbsent(List.of(limit.resource(), limit.scope(), limit.interval()), key -> new long[1]))
        .toList();
    return settlingCounter(all, permits -> {
      combinedAcquires.incrementAndGet();
      int n = acquires.incrementAndGet();
      if (failing.test(n) || mode == Mode.FAIL) {
        return CompletableFuture.failedFuture(new IllegalStateException("store failed acquire " + n));
      }
      if (mode == Mode.THROW) {
        throw new IllegalStateException("client broken");
      }
      if (mode == Mode.HANG) {
        CompletableFuture<ClusterDecision> future = new CompletableFuture<>();
        hanging.add(future);
        return future;
      }
      synchronized (counts) {
        for (int i = 0; i < all.size(); i++) {
          if (all.get(i)[0] > limits.get(i).count() - permits) { // a count saturated by a debt: no overflow
            return CompletableFuture.completedFuture(new ClusterDecision(false, 0, retryAfterMillis, 0, i));
          }
        }
        for (long[] count : all) {
          count[0] += permits;
        }
        return CompletableFuture.completedFuture(new ClusterDecision(true, 0, 0));
      }
    });
  }

  /** Whether counters settle calls ({@link ClusterCounter#settle}); false: the SPI's default, which cannot. */
  public volatile boolean settling = true;
  /** Every settlement asked of a counter: its stamp and delta. */
  public final List<long[]> settlements = new CopyOnWriteArrayList<>();
  /** Futures of settlements in HANG mode, for the test to answer. */
  public final Queue<CompletableFuture<Object>> hangingSettlements = new ConcurrentLinkedQueue<>();

  /**
   * A counter that decides with {@code decide} and settles on {@code all} (the counts it decided on):
   * a refund uncounts (never below 0), a debt counts, saturating; or fails as scripted.
   */
  private ClusterCounter settlingCounter(List<long[]> all, ClusterCounter decide) {
    return new ClusterCounter() {
      @Override
      public CompletableFuture<ClusterDecision> acquire(int permits) {
        return decide.acquire(permits);
      }

      @Override
      public CompletableFuture<?> settle(long stampMicros, long delta) {
        if (!settling) {
          return ClusterCounter.super.settle(stampMicros, delta);
        }
        settlements.add(new long[] {stampMicros, delta});
        return switch (mode) {
          case COUNT -> {
            synchronized (counts) {
              for (long[] count : all) {
                long sum = count[0] + delta;
                count[0] = delta < 0 ? Math.max(0, sum) : sum < 0 ? Long.MAX_VALUE : sum;
              }
            }
            yield CompletableFuture.completedFuture(null);
          }
          case FAIL -> CompletableFuture.failedFuture(new IllegalStateException("store down"));
          case THROW -> throw new IllegalStateException("client broken");
          case HANG -> {
            CompletableFuture<Object> future = new CompletableFuture<>();
            hangingSettlements.add(future);
            yield future;
          }
        };
      }
    };
  }

  /** Returns what the store has counted for one key of a param-flow rule. */
  long countedKey(String resource, String rule, String key) {
    long[] count = counts.get(List.of(resource, rule, key));
    return count == null ? 0 : count[0];
  }

  private ClusterDecision decide(long[] count, double limit, int permits) {
    synchronized (counts) {
      if (count[0] <= limit - permits) { // a count saturated by a debt: no overflow
        count[0] += permits;
        return new ClusterDecision(true, (long) (limit - count[0]), 0);
      }
      return new ClusterDecision(false, Math.max(0, (long) (limit - count[0])), retryAfterMillis);
    }
  }

  /** Returns what the store has counted for {@code resource}'s limit of scope {@code all} over 1 s. */
  long counted(String resource) {
    return counted(resource, java.time.Duration.ofSeconds(1));
  }

  /** Returns what the store has counted for {@code resource}'s limit of scope {@code all} over {@code interval}. */
  long counted(String resource, java.time.Duration interval) {
    long[] count = counts.get(List.of(resource, "all", interval));
    return count == null ? 0 : count[0];
  }

  /** Futures of HANG mode not yet completed or cancelled. */
  long outstanding() {
    return hanging.stream().filter(future -> !future.isDone()).count();
  }

  /** Whether {@link #leases} and {@link #keyLeases} lease (else they answer null, as a store that cannot). */
  public volatile boolean leasing;
  /** Whether a renewal ahead of time is answered "ask later" instead of granted. */
  public volatile boolean askLaterAhead;
  /** How long a granted lease is valid, at most; 0: what the request asks. */
  public volatile long maxValidNanos;
  /** The fair share every answer carries. */
  public volatile long share = Long.MAX_VALUE;
  /** Every lease request, in order. */
  public final List<dev.weir.cluster.LeaseRequest> leaseRequests = new CopyOnWriteArrayList<>();
  /** Every give-back: the lease's receipt and the permits given back. */
  public final List<Map.Entry<String, Long>> giveBacks = new CopyOnWriteArrayList<>();
  private final AtomicInteger receipts = new AtomicInteger();
  /** Receipts of leases not settled yet, with their granted permits: a lease is settled at most once. */
  private final Map<String, Long> unsettled = new ConcurrentHashMap<>();

  @Override
  public dev.weir.cluster.ClusterLeases leases(ClusterLimit limit) {
    if (!leasing) {
      return null;
    }
    limits.add(limit);
    return leasesOf(counts.computeIfAbsent(List.of(limit.resource(), limit.scope(), limit.interval()),
        key -> new long[1]), limit.count());
  }

  @Override
  public dev.weir.cluster.ClusterLeases keyLeases(dev.weir.cluster.ClusterKeyLimit limit) {
    if (!leasing) {
      return null;
    }
    keyLimits.add(limit);
    return leasesOf(counts.computeIfAbsent(List.of(limit.resource(), limit.rule(), limit.key()), key -> new long[1]),
        limit.count());
  }

  /** Leases over one in-memory count (no refill, as {@link Mode#COUNT}): a grant counts its permits, a give-back uncounts them. */
  private dev.weir.cluster.ClusterLeases leasesOf(long[] count, double limit) {
    return new dev.weir.cluster.ClusterLeases() {
      @Override
      public CompletableFuture<dev.weir.cluster.ClusterLease> lease(dev.weir.cluster.LeaseRequest request) {
        leaseRequests.add(request);
        int n = acquires.incrementAndGet();
        if (failing.test(n)) {
          return CompletableFuture.failedFuture(new IllegalStateException("store failed acquire " + n));
        }
        return switch (mode) {
          case COUNT -> CompletableFuture.completedFuture(grant(count, limit, request));
          case FAIL -> CompletableFuture.failedFuture(new IllegalStateException("store down"));
          case THROW -> throw new IllegalStateException("client broken");
          case HANG -> {
            CompletableFuture<dev.weir.cluster.ClusterLease> future = new CompletableFuture<>();
            hangingLeases.add(future);
            yield future;
          }
        };
      }

      @Override
      public CompletableFuture<?> giveBack(dev.weir.cluster.ClusterLease lease, long unused) {
        giveBacks.add(Map.entry(lease.receipt(), unused));
        synchronized (counts) {
          settle(count, lease, unused);
        }
        return CompletableFuture.completedFuture(null);
      }
    };
  }

  /** Futures of leases in HANG mode, for the test to answer. */
  public final Queue<CompletableFuture<dev.weir.cluster.ClusterLease>> hangingLeases = new ConcurrentLinkedQueue<>();

  private void settle(long[] count, dev.weir.cluster.ClusterLease lease, long unused) {
    Long granted = unsettled.remove(lease.receipt());
    if (granted != null) {
      count[0] -= Math.min(granted, unused);
    }
  }

  /** Grants what fits of a request (after settling its previous lease), as a store would; under the counts' lock. */
  dev.weir.cluster.ClusterLease grant(long[] count, double limit, dev.weir.cluster.LeaseRequest request) {
    synchronized (counts) {
      if (request.settle() != null) {
        settle(count, request.settle(), request.unused());
      }
      long free = (long) Math.floor(limit) - count[0];
      if (request.ahead() && askLaterAhead) {
        return dev.weir.cluster.ClusterLease.none(false, Math.max(0, free), 0, 0, share);
      }
      if (request.wanted() == 0) {
        return dev.weir.cluster.ClusterLease.none(false, Math.max(0, free), 0, 0, share);
      }
      if (free < request.minimum()) {
        return dev.weir.cluster.ClusterLease.none(true, Math.max(0, free), retryAfterMillis, 0, share);
      }
      long granted = Math.min(request.wanted(), free);
      count[0] += granted;
      String receipt = "lease-" + receipts.incrementAndGet();
      unsettled.put(receipt, granted);
      long valid = maxValidNanos > 0 ? Math.min(maxValidNanos, request.validNanos()) : request.validNanos();
      return new dev.weir.cluster.ClusterLease(false, granted, valid, free - granted, 0, 0, share, receipt);
    }
  }

  @Override
  public int liveInstances() {
    return liveInstances;
  }

  @Override
  public CompletableFuture<?> ping() {
    return mode == Mode.COUNT ? CompletableFuture.completedFuture("PONG")
        : CompletableFuture.failedFuture(new IllegalStateException("store down"));
  }

  @Override
  public String description() {
    return "scripted store";
  }
}
