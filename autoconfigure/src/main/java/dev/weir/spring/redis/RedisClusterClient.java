package dev.weir.spring.redis;

import dev.weir.cluster.ClusterClient;
import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import dev.weir.cluster.ClusterKeyLimit;
import dev.weir.cluster.ClusterLeases;
import dev.weir.cluster.ClusterLimit;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.lang.System.Logger.Level;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Counts cluster-mode flow rules in Redis, on the application's {@link LettuceConnectionFactory}
 * (its {@code spring.data.redis.*} connection: standalone, Sentinel or Redis Cluster).
 *
 * <p>Each {@link ClusterLimit} is one hash, {@code <prefix>:{<resource>}:flow:<scope>:<interval>ms},
 * whose fields are the buckets of a sliding window. One Lua script (the resource
 * {@code sliding-window.lua} next to this class) reads Redis' clock, drops old buckets, admits and
 * counts, or refuses with a retry-after, atomically. An {@linkplain ClusterLimit#exact() exact}
 * limit is one sorted set, {@code <prefix>:{<resource>}:exact:<scope>:<interval>ms}, one member per
 * admitted permit scored by Redis' time, decided by {@code exact-window.lua} (trim, count and add
 * in one step; the decision carries the Redis time it was made at). A script is sent with {@code EVALSHA}, and once with
 * {@code EVAL} when Redis answers {@code NOSCRIPT} (after a restart or {@code SCRIPT FLUSH}), which
 * loads it again ({@link RedisDecision}). While the connection is down a decision fails at once
 * rather than wait in Lettuce's buffer, and a decision the engine gave up on is cancelled, so
 * Lettuce never sends it later to the Redis that comes back. Every key of a resource carries the resource as its hash tag, so all of them live
 * on one Redis Cluster slot.
 *
 * <p>With {@code lease} ({@code weir.cluster.lease}), cluster-mode rules lease blocks of permits
 * ({@link #leases}, {@link #keyLeases}): a flow rule on its own hash,
 * {@code <prefix>:{<resource>}:lease:<scope>:<interval>ms} ({@code lease-window.lua}), a key of a
 * param-flow rule on the key's GCRA state ({@code lease-gcra.lua}); see docs/cluster-leases.md for
 * the bound they keep.
 *
 * <p>With {@code announce} (the {@code share} fallback), the client also announces its instance:
 * every {@link #HEARTBEAT} it adds its id to the sorted set {@code <prefix>:instances}, scored by
 * Redis time, drops ids silent for {@link #INSTANCE_TTL}, and keeps the number of live ids it was
 * answered ({@link #liveInstances()}), which stays as it was while Redis fails. Closing the client
 * removes its id.
 *
 * <p>Nothing here blocks a caller: commands are asynchronous on Lettuce's shared connection, and the
 * connection is opened on a background thread (at construction, then once a second until it opens),
 * so a Redis that is down at startup costs decisions a fallback, never a wait. Deadlines,
 * breaker and fallback are the engine's ({@code dev.weir.cluster.ClusterOptions}).
 */
public final class RedisClusterClient implements ClusterClient, AutoCloseable {

  private static final System.Logger LOG = System.getLogger(RedisClusterClient.class.getName());

  /** The sliding-window Lua script, as sent with {@code EVAL}. */
  static final byte[] SCRIPT = RedisScript.SLIDING_WINDOW.bytes;

  /** Its SHA-1, as Redis names it for {@code EVALSHA}. */
  static final String SHA = RedisScript.SLIDING_WINDOW.sha;

  private static final Duration RETRY = Duration.ofSeconds(1);

  /** How often an announcing instance tells Redis it is alive. */
  public static final Duration HEARTBEAT = Duration.ofSeconds(1);

  /** How long after its last heartbeat an instance still counts as live: three heartbeats. */
  public static final Duration INSTANCE_TTL = HEARTBEAT.multipliedBy(3);
  private static final byte[] ONE = ascii("1");
  private static final byte[] ZERO = ascii("0");
  private static final byte[] BUCKETS = ascii(Integer.toString(ClusterLimit.BUCKETS));

  private final LettuceConnectionFactory connectionFactory;
  private final String keyPrefix;
  private final ScheduledExecutorService connector;
  private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;
  private volatile @Nullable RedisConnection connection;
  private volatile @Nullable StatefulConnection<byte[], byte[]> statefulConnection;
  private volatile boolean closed;
  private final boolean announce;
  private final boolean lease;
  private final byte[][] instancesKey;
  private final byte[] instanceId = ascii(UUID.randomUUID().toString());
  /** Numbers of this instance's lease receipts ({@link #nextReceipt}). */
  private final AtomicLong receipts = new AtomicLong();
  private volatile int liveInstances;
  private volatile @Nullable RedisFuture<Long> heartbeat;
  private int failedConnects; // connector thread only

  /**
   * Creates the client and starts connecting in the background.
   *
   * @param connectionFactory the application's Lettuce connection factory
   * @param keyPrefix the first part of every key, without braces
   */
  public RedisClusterClient(LettuceConnectionFactory connectionFactory, String keyPrefix) {
    this(connectionFactory, keyPrefix, false);
  }

  /**
   * Creates the client and starts connecting in the background.
   *
   * @param connectionFactory the application's Lettuce connection factory
   * @param keyPrefix the first part of every key, without braces
   * @param announce whether this instance announces itself (the {@code share} fallback needs it)
   */
  public RedisClusterClient(LettuceConnectionFactory connectionFactory, String keyPrefix, boolean announce) {
    this(connectionFactory, keyPrefix, announce, false);
  }

  /**
   * Creates the client and starts connecting in the background.
   *
   * @param connectionFactory the application's Lettuce connection factory
   * @param keyPrefix the first part of every key, without braces
   * @param announce whether this instance announces itself (the {@code share} fallback needs it)
   * @param lease whether cluster-mode rules lease blocks of permits ({@code weir.cluster.lease})
   */
  public RedisClusterClient(LettuceConnectionFactory connectionFactory, String keyPrefix, boolean announce,
      boolean lease) {
    if (keyPrefix.isBlank() || keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException("keyPrefix must be non-blank and without braces, was '" + keyPrefix + "'");
    }
    this.connectionFactory = connectionFactory;
    this.keyPrefix = keyPrefix;
    this.announce = announce;
    this.lease = lease;
    this.instancesKey = new byte[][] {(keyPrefix + ":instances").getBytes(StandardCharsets.UTF_8)};
    this.connector = Executors.newSingleThreadScheduledExecutor(task -> {
      Thread thread = new Thread(task, "weir-redis-connect");
      thread.setDaemon(true);
      return thread;
    });
    connector.execute(this::connect);
  }

  /** Returns the Redis key of {@code limit}. */
  public String key(ClusterLimit limit) {
    return keyPrefix + ":{" + limit.resource() + "}:" + (limit.exact() ? "exact:" : "flow:") + limit.scope() + ":"
        + limit.interval().toMillis() + "ms";
  }

  /**
   * Returns the Redis key of one key of a param-flow rule:
   * {@code <prefix>:{<resource>|<key>}:pk:<rule>}. The resource and the key make the hash tag, so
   * that the keys of one hot resource spread over a Redis Cluster's masters (each decision touches
   * one key, so no two need to share a slot). The key is the engine's encoding of the caller's
   * ({@link ClusterKeyLimit#key()}: no brace, bar or colon), so the tag is always the whole of the
   * resource and the key, and the key cannot be read as another resource's, rule's or key's.
   */
  public String key(ClusterKeyLimit limit) {
    return keyPrefix + ":{" + limit.resource() + "|" + limit.key() + "}:pk:" + limit.rule();
  }

  /** One {@code gcra.lua} call per decision on the key's one Redis string, which expires when its bucket is full again. */
  @Override
  public ClusterCounter keyCounter(ClusterKeyLimit limit) {
    if (limit.count() == 0) {
      CompletableFuture<ClusterDecision> refused = CompletableFuture.completedFuture(new ClusterDecision(false, 0, 0));
      return permits -> refused; // a count of 0 refuses every call: no round trip
    }
    byte[][] keys = {key(limit).getBytes(StandardCharsets.UTF_8)};
    BigDecimal micros = BigDecimal.valueOf(limit.duration().toNanos()).movePointLeft(3);
    byte[] emission = ascii(micros.divide(BigDecimal.valueOf(limit.count()), java.math.MathContext.DECIMAL64)
        .toPlainString());
    byte[] capacity = ascii(BigDecimal.valueOf(limit.count()).add(BigDecimal.valueOf(limit.burst())).toPlainString());
    return new RedisCounter(this, RedisScript.GCRA, keys, permits -> withPermits(permits, emission, capacity),
        new byte[][] {ascii("g"), emission, capacity, ZERO});
  }

  /**
   * One script call per decision: {@code sliding-window.lua}, or {@code exact-window.lua} for an
   * exact limit; with leases, {@code lease-window.lua} on the lease key, so that a call decided
   * alone (more permits than a lease holds, a call the leases could not serve) counts with the leases.
   */
  @Override
  public ClusterCounter counter(ClusterLimit limit) {
    if (lease) {
      return RedisLeases.windowCounter(this, leaseKey(limit), limit);
    }
    byte[][] keys = {key(limit).getBytes(StandardCharsets.UTF_8)};
    byte[] count = ascii(BigDecimal.valueOf(limit.count()).toPlainString());
    byte[] window = ascii(Long.toString(limit.interval().toMillis()));
    if (limit.exact()) {
      byte[] whole = ascii(Long.toString((long) limit.count()));
      return new RedisCounter(this, RedisScript.EXACT_WINDOW, keys, permits -> withPermits(permits, whole, window),
          new byte[][] {ascii("x"), whole, window, ZERO});
    }
    return new RedisCounter(this, RedisScript.SLIDING_WINDOW, keys,
        permits -> withPermits(permits, count, window, BUCKETS), new byte[][] {ascii("w"), count, window, BUCKETS});
  }

  /**
   * One {@code several-limits.lua} call for all of {@code limits}, all or nothing. Their keys all
   * carry the resource as hash tag, so they hash to one Redis Cluster slot, as a script's keys must;
   * limits of different resources are not combined (null).
   */
  @Override
  public @Nullable ClusterCounter counterOfAll(List<ClusterLimit> limits) {
    if (lease || limits.isEmpty() || limits.stream().map(ClusterLimit::resource).distinct().count() != 1) {
      return null;
    }
    byte[][] keys = new byte[limits.size()][];
    byte[][] arguments = new byte[4 * limits.size()][];
    for (int i = 0; i < limits.size(); i++) {
      ClusterLimit limit = limits.get(i);
      keys[i] = key(limit).getBytes(StandardCharsets.UTF_8);
      arguments[4 * i] = ascii(limit.exact() ? "x" : "w");
      arguments[4 * i + 1] = ascii(limit.exact() ? Long.toString((long) limit.count())
          : BigDecimal.valueOf(limit.count()).toPlainString());
      arguments[4 * i + 2] = ascii(Long.toString(limit.interval().toMillis()));
      arguments[4 * i + 3] = BUCKETS;
    }
    byte[][] settling = new byte[4 * limits.size()][];
    for (int i = 0; i < limits.size(); i++) {
      settling[4 * i] = arguments[4 * i]; // the kind: w or x, as settle.lua names them too
      settling[4 * i + 1] = arguments[4 * i + 1];
      settling[4 * i + 2] = arguments[4 * i + 2];
      settling[4 * i + 3] = limits.get(i).exact() ? ZERO : BUCKETS;
    }
    return new RedisCounter(this, RedisScript.SEVERAL_LIMITS, keys, permits -> {
      byte[][] all = new byte[arguments.length + 1][];
      all[0] = permits == 1 ? ONE : ascii(Integer.toString(permits));
      System.arraycopy(arguments, 0, all, 1, arguments.length);
      return all;
    }, settling);
  }

  @Override
  public String description() {
    return "redis " + describeEndpoint();
  }

  /** Sends {@code PING}; the future fails when there is no connection yet. */
  @Override
  public CompletableFuture<String> ping() {
    RedisClusterAsyncCommands<byte[], byte[]> async = commands;
    if (async == null) {
      return CompletableFuture.failedFuture(new IllegalStateException("not connected to Redis yet"));
    }
    return async.ping().toCompletableFuture();
  }

  /** Returns the live instances Redis last counted, this one included; 0 before the first answer or without announcing. */
  @Override
  public int liveInstances() {
    return liveInstances;
  }

  /**
   * One heartbeat, on the connector thread, never waited for: a heartbeat still unanswered at the
   * next one is cancelled, so none pile up while Redis hangs, and none is buffered while the
   * connection is down.
   */
  private void heartbeat() {
    RedisClusterAsyncCommands<byte[], byte[]> async = commands;
    StatefulConnection<byte[], byte[]> stateful = statefulConnection;
    if (closed || async == null || (stateful != null && !stateful.isOpen())) {
      return;
    }
    RedisFuture<Long> previous = heartbeat;
    if (previous != null && !previous.isDone()) {
      previous.cancel(false);
    }
    try {
      RedisFuture<Long> sent = async.eval(RedisScript.ANNOUNCE.bytes, ScriptOutputType.INTEGER, instancesKey,
          instanceId, ascii(Long.toString(INSTANCE_TTL.toMillis())));
      heartbeat = sent;
      sent.whenComplete((count, failure) -> {
        if (failure == null && count != null && count > 0) {
          liveInstances = (int) Math.min(count, Integer.MAX_VALUE);
        }
      });
    } catch (RuntimeException e) {
      // Redis or the connection failed: keep the last count; the next heartbeat tries again.
    }
  }

  /** Returns whether a connection has been opened (Lettuce reconnects it by itself after that). */
  public boolean connected() {
    return commands != null;
  }

  /**
   * Returns the Redis key of {@code limit} when instances lease ({@code weir.cluster.lease}):
   * {@code <prefix>:{<resource>}:lease:<scope>:<interval>ms}, a hash of permits by the bucket a lease
   * ends in ({@code lease-window.lua}), for exact and sliding windows alike. Leasing instances and
   * instances that ask per call count on different keys: a fleet turns leases on all at once.
   */
  public String leaseKey(ClusterLimit limit) {
    return keyPrefix + ":{" + limit.resource() + "}:lease:" + limit.scope() + ":" + limit.interval().toMillis() + "ms";
  }

  /** Whether this client leases ({@code weir.cluster.lease}). */
  public boolean leasing() {
    return lease;
  }

  /**
   * Leases of a flow rule ({@code weir.cluster.lease}): one {@code lease-window.lua} call per lease,
   * renewal, settlement and give-back; null without leases or below a count of 1.
   */
  @Override
  public @Nullable ClusterLeases leases(ClusterLimit limit) {
    if (!lease || limit.count() < 1) {
      return null;
    }
    return RedisLeases.window(this, leaseKey(limit), limit);
  }

  /**
   * Leases of one key of a param-flow rule ({@code weir.cluster.lease}): one {@code lease-gcra.lua}
   * call each, on the key's {@code gcra.lua} state, shared with instances that ask per call.
   */
  @Override
  public @Nullable ClusterLeases keyLeases(ClusterKeyLimit limit) {
    if (!lease || limit.count() < 1) {
      return null;
    }
    return RedisLeases.gcra(this, key(limit), limit);
  }

  /**
   * The next number of a lease receipt of this instance: one counter for all its limits, so that a
   * limiter made again for the same key (its key evicted and seen again) never names a receipt that
   * an earlier lease of the key still holds in Redis.
   */
  long nextReceipt() {
    return receipts.incrementAndGet();
  }

  /** This instance's id, as it announces itself and names its leases. */
  String instanceId() {
    return new String(instanceId, StandardCharsets.US_ASCII);
  }

  /** {@code arguments}, then the permits asked for. */
  private static byte[][] withPermits(int permits, byte[]... arguments) {
    byte[][] all = Arrays.copyOf(arguments, arguments.length + 1);
    all[arguments.length] = permits == 1 ? ONE : ascii(Integer.toString(permits));
    return all;
  }

  /** Sends one script call whose reply {@code reading} reads, unless there is no open connection to send it on. */
  <T> CompletableFuture<T> send(RedisScript script, byte[][] keys, byte[][] arguments,
      java.util.function.Function<@Nullable List<Long>, T> reading) {
    RedisClusterAsyncCommands<byte[], byte[]> async = commands;
    StatefulConnection<byte[], byte[]> stateful = statefulConnection;
    if (async == null) {
      return CompletableFuture.failedFuture(new IllegalStateException("not connected to Redis yet"));
    }
    if (stateful != null && !stateful.isOpen()) {
      // Lettuce would buffer the command until it reconnects and then run it, long after the
      // caller's deadline: refuse it now instead.
      return CompletableFuture.failedFuture(new IllegalStateException("disconnected from Redis, reconnecting"));
    }
    return new RedisDecision<>(async, script, keys, arguments, reading).start();
  }

  /**
   * Opens the connection; on failure tries again every {@link #RETRY} on the connector thread, so
   * that callers never wait for a connect and never cause a storm of them. Once open, Lettuce
   * reconnects the connection by itself.
   */
  private void connect() {
    if (closed) {
      return;
    }
    try {
      RedisConnection opened = connectionFactory.getConnection();
      if (!(opened instanceof LettuceConnection lettuce)) {
        opened.close();
        throw new IllegalStateException("a Lettuce connection, got " + opened.getClass().getName());
      }
      connection = opened;
      RedisClusterAsyncCommands<byte[], byte[]> async = lettuce.getNativeConnection();
      statefulConnection = async instanceof RedisAsyncCommands<byte[], byte[]> standalone
          ? standalone.getStatefulConnection()
          : async instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster ? cluster.getStatefulConnection()
              : null;
      commands = async;
      LOG.log(Level.INFO, "Weir cluster mode connected to {0}", description());
      if (announce) {
        connector.scheduleAtFixedRate(this::heartbeat, 0, HEARTBEAT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (RuntimeException e) {
      if (failedConnects++ == 0) {
        LOG.log(Level.WARNING, "Weir cluster mode could not connect to {0}: {1}; cluster-mode rules use their "
            + "fallback until it can (trying again every {2} ms)", description(), e.getMessage(), RETRY.toMillis());
      }
      if (!closed) {
        connector.schedule(this::connect, RETRY.toMillis(), TimeUnit.MILLISECONDS);
      }
    }
  }

  private String describeEndpoint() {
    if (connectionFactory.isRedisSentinelAware() && connectionFactory.getSentinelConfiguration() != null) {
      var sentinel = connectionFactory.getSentinelConfiguration();
      return "sentinel master " + (sentinel.getMaster() == null ? "?" : sentinel.getMaster().getName()) + " via "
          + sentinel.getSentinels().stream().map(node -> node.getHost() + ":" + node.getPort())
              .collect(Collectors.joining(","));
    }
    if (connectionFactory.isClusterAware()) {
      return "cluster " + connectionFactory.getClusterConfiguration().getClusterNodes().stream()
          .map(node -> node.getHost() + ":" + node.getPort()).collect(Collectors.joining(","));
    }
    return connectionFactory.getHostName() + ":" + connectionFactory.getPort();
  }

  /** Closes this client's handle on the connection; the factory's shared connection is the factory's. */
  @Override
  public void close() {
    closed = true;
    connector.shutdownNow();
    RedisClusterAsyncCommands<byte[], byte[]> async = commands;
    if (announce && async != null) {
      try {
        async.zrem(instancesKey[0], instanceId); // not waited for: the others drop it after INSTANCE_TTL anyway
      } catch (RuntimeException e) {
        // best effort
      }
    }
    commands = null;
    statefulConnection = null;
    RedisConnection opened = connection;
    connection = null;
    if (opened != null) {
      opened.close();
    }
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }
}
