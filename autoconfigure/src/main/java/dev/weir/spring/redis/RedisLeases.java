package dev.weir.spring.redis;

import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterKeyLimit;
import dev.weir.cluster.ClusterLease;
import dev.weir.cluster.ClusterLeases;
import dev.weir.cluster.ClusterLimit;
import dev.weir.cluster.LeaseRequest;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The leases of one limit in Redis ({@code weir.cluster.lease}): each lease, renewal (with the
 * settlement of the lease before it) and give-back is one script call, {@code lease-window.lua} for
 * a flow rule and {@code lease-gcra.lua} for a key of a param-flow rule. The scripts' comments state
 * what they count and why that bounds the permits spent in any window.
 *
 * <p>A lease's receipt ({@link ClusterLease#receipt()}) is the name of a Redis key, next to the
 * limit's (same hash tag, so the same Redis Cluster slot), that the grant writes and a give-back
 * deletes: so a lease is given back at most once, and not at all once the receipt expired (after
 * {@link #receiptMillis}) or Redis lost it, which keeps its permits counted.
 */
final class RedisLeases implements ClusterLeases {

  private static final byte[] LEASE = ascii("l");
  private static final byte[] CALL = ascii("c");
  private static final byte[] GIVE_BACK = ascii("b");
  private static final byte[] ZERO = ascii("0");
  private static final byte[] NONE = ascii("-");
  /** Buckets of a lease window: the bucket width is interval / this. */
  static final int LEASE_BUCKETS = 100;
  /** A demand counts in the fair shares for at least this long after it was reported. */
  private static final long MIN_FRESH_MILLIS = 2_000;

  private final RedisClusterClient client;
  private final boolean window;
  private final String key;
  /** The script's arguments that do not change: for a window, limit, window, width; for GCRA, emission and capacity. */
  private final byte[][] fixed;
  private final byte[] demandsKey;
  private final byte[] instanceKey;
  private final byte[] instance;

  private RedisLeases(RedisClusterClient client, boolean window, String key, byte[][] fixed) {
    this.client = client;
    this.window = window;
    this.key = key;
    this.fixed = fixed;
    this.instance = ascii(client.instanceId());
    this.demandsKey = utf8(key + ":d");
    this.instanceKey = utf8(key + ":i:" + client.instanceId());
  }

  /** The leases of a flow rule on its lease key. */
  static RedisLeases window(RedisClusterClient client, String key, ClusterLimit limit) {
    return new RedisLeases(client, true, key, windowArguments(limit));
  }

  /** The leases of one key of a param-flow rule on its GCRA state. */
  static RedisLeases gcra(RedisClusterClient client, String key, ClusterKeyLimit limit) {
    BigDecimal micros = BigDecimal.valueOf(limit.duration().toNanos()).movePointLeft(3);
    byte[] emission = ascii(micros.divide(BigDecimal.valueOf(limit.count()), MathContext.DECIMAL64).toPlainString());
    byte[] capacity = ascii(BigDecimal.valueOf(limit.count()).add(BigDecimal.valueOf(limit.burst())).toPlainString());
    return new RedisLeases(client, false, key, new byte[][] {emission, capacity});
  }

  /**
   * One decision per call on a flow rule's lease key (a lease of the call's permits, valid for no
   * time), for the calls the leases do not serve.
   */
  static ClusterCounter windowCounter(RedisClusterClient client, String key, ClusterLimit limit) {
    byte[][] keys = {utf8(key)};
    byte[][] fixed = windowArguments(limit);
    return new RedisCounter(client, RedisScript.LEASE_WINDOW, keys, permits -> {
      byte[] asked = ascii(Integer.toString(permits));
      return new byte[][] {CALL, fixed[0], fixed[1], fixed[2], asked, asked, ZERO, ZERO, ZERO, NONE, ZERO, ZERO};
    }, new byte[][] {ascii("l"), fixed[0], fixed[1], fixed[2]});
  }

  /** Limit (whole permits), window in ms and bucket width in us. */
  private static byte[][] windowArguments(ClusterLimit limit) {
    long millis = limit.interval().toMillis();
    // The interval is a multiple of 10 ms (ClusterLimit), so the width, interval / 100, is whole in us.
    long widthMicros = millis * 1000 / LEASE_BUCKETS;
    return new byte[][] {ascii(Long.toString((long) Math.floor(limit.count()))), ascii(Long.toString(millis)),
        ascii(Long.toString(widthMicros))};
  }

  /** How long a receipt lives: three validities and 2 s, past which a give-back changes nothing. */
  static long receiptMillis(long validNanos) {
    return 3 * TimeUnit.NANOSECONDS.toMillis(validNanos) + 2_000;
  }

  @Override
  public CompletableFuture<ClusterLease> lease(LeaseRequest request) {
    String receipt = key + ":r:" + client.instanceId() + "." + client.nextReceipt();
    byte[] receiptKey = utf8(receipt);
    ClusterLease settle = request.settle();
    boolean settles = settle != null && !settle.receipt().isEmpty() && request.unused() > 0;
    long validMicros = Math.max(1, TimeUnit.NANOSECONDS.toMicros(request.validNanos()));
    byte[] valid = ascii(Long.toString(validMicros));
    byte[] wanted = ascii(Long.toString(request.wanted()));
    byte[] minimum = ascii(Long.toString(request.minimum()));
    byte[] ttl = ascii(Long.toString(receiptMillis(request.validNanos())));
    byte[] unused = ascii(Long.toString(settles ? request.unused() : 0));
    byte[][] keys;
    byte[][] arguments;
    if (window) {
      byte[] mainKey = utf8(key);
      keys = settles ? new byte[][] {mainKey, receiptKey, demandsKey, instanceKey, utf8(settle.receipt())}
          : new byte[][] {mainKey, receiptKey, demandsKey, instanceKey};
      long fresh = Math.max(MIN_FRESH_MILLIS, 4 * TimeUnit.NANOSECONDS.toMillis(request.validNanos()));
      arguments = new byte[][] {LEASE, fixed[0], fixed[1], fixed[2], wanted, minimum, valid, ttl,
          ascii(Long.toString(request.demand())), instance, ascii(Long.toString(fresh)), unused};
    } else {
      byte[] stateKey = utf8(key);
      keys = settles ? new byte[][] {stateKey, receiptKey, utf8(settle.receipt())} : new byte[][] {stateKey, receiptKey};
      arguments = new byte[][] {LEASE, fixed[0], fixed[1], wanted, minimum, valid, ttl, unused};
    }
    return client.send(window ? RedisScript.LEASE_WINDOW : RedisScript.LEASE_GCRA, keys, arguments,
        reply -> lease(reply, receipt));
  }

  @Override
  public CompletableFuture<?> giveBack(ClusterLease lease, long unused) {
    if (lease.receipt().isEmpty() || unused <= 0) {
      return CompletableFuture.completedFuture(null);
    }
    byte[] back = ascii(Long.toString(unused));
    if (window) {
      byte[][] keys = {utf8(key), utf8(lease.receipt()), demandsKey, instanceKey};
      return client.send(RedisScript.LEASE_WINDOW, keys, new byte[][] {GIVE_BACK, fixed[0], fixed[1], fixed[2], ZERO,
          ZERO, ZERO, ZERO, ZERO, instance, ZERO, back}, RedisLeases::given);
    }
    byte[][] keys = {utf8(key), utf8(lease.receipt())};
    return client.send(RedisScript.LEASE_GCRA, keys, new byte[][] {GIVE_BACK, fixed[0], fixed[1], ZERO, ZERO, ZERO,
        ZERO, back}, RedisLeases::given);
  }

  /** Reads a lease script's reply to a lease: {refused, granted, validity us, free, retry-after ms, time us, share}. */
  static ClusterLease lease(@Nullable List<Long> reply, String receipt) {
    if (reply == null || reply.size() != 7) {
      throw new IllegalStateException("unexpected reply of the Weir lease script: " + reply);
    }
    boolean refused = reply.get(0) == 1L;
    long granted = Math.max(0, reply.get(1));
    long free = Math.max(0, reply.get(3));
    long retry = Math.max(0, reply.get(4));
    long stamp = Math.max(0, reply.get(5));
    long share = reply.get(6) < 0 ? Long.MAX_VALUE : reply.get(6);
    if (granted == 0 || refused) {
      return ClusterLease.none(refused, free, retry, stamp, share);
    }
    long validNanos = TimeUnit.MICROSECONDS.toNanos(Math.max(1, reply.get(2)));
    return new ClusterLease(false, granted, validNanos, free, 0, stamp, share, receipt);
  }

  /** Reads a give-back's reply: the permits taken out of the counts. */
  static Long given(@Nullable List<Long> reply) {
    if (reply == null || reply.size() != 1) {
      throw new IllegalStateException("unexpected reply of the Weir lease script: " + reply);
    }
    return reply.get(0);
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
