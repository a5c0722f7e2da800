package dev.weir.spring.fleet;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The fleet's traffic in Redis: each instance's reading of its last second, and their sum over the
 * live instances, the {@code resources} of {@code GET /actuator/weir/fleet}. Every key carries the
 * hash tag {@code {traffic}}, so all of them live on one Redis Cluster slot and one script reads
 * them together:
 *
 * <ul>
 *   <li>{@code <prefix>:{traffic}:i:<id>}: an instance's hash, one field per resource (at most
 *       {@link #MAX_RESOURCES}), expiring {@link #TTL} after it was written;
 *   <li>{@code <prefix>:{traffic}:instances}: the ids of the publishing instances by the Redis time
 *       of their last reading (at most {@link #MAX_INSTANCES}).
 * </ul>
 *
 * <p>A reading's value is nine decimal numbers separated by spaces: the totals since the resource
 * was first seen (passed, blocked, succeeded, failed), the active calls, and the counts of the last
 * second of the instance's engine (pass, block, success, exception), as {@code GET /actuator/weir}
 * shows them.
 *
 * <p>Why each instance publishes its last second's counts rather than only its totals: a sum of
 * rates then needs nothing but the latest readings. Rates computed by the reader from successive
 * totals would need the reader to keep the previous reading of every instance and the time between
 * them, would be wrong for the first request, after a pause longer than the TTL and whenever two
 * readers (two pages, two instances answering) take turns, and would count a restarted instance's
 * totals going back to 0 as negative traffic. The per-second counts are the engine's own (the same
 * window as each instance's endpoint), so the fleet's figure is exactly the sum of the figures the
 * instances showed when they published, each at most one second old. The totals are published
 * beside them, for exact sums over the fleet ({@link #read()}).
 *
 * <p>The sum is made here, not in Redis: one script ({@code traffic-read.lua}) returns the live
 * instances' fields, and this parses and adds them. Parsing nine numbers a field in Lua cost Redis
 * about 30 ms for 40 instances of 100 resources, while the reading costs it under 2 ms; Redis is
 * single-threaded and serves cluster-mode decisions with deadlines of milliseconds.
 *
 * <p>Every call waits at most {@link #TIMEOUT} and never queues behind a connection that is down.
 * Reads are bounded whatever the keys hold: a hash of more than {@link #MAX_RESOURCES} fields is
 * skipped unread, at most {@link #MAX_FIELDS_READ} fields are read in all, and a value is taken
 * only when it is exactly nine decimal numbers of at most 15 digits separated by single spaces
 * (sums saturate at {@link Long#MAX_VALUE}). Nothing here throws out of {@link #summed()}: an
 * unreachable Redis sums to nothing.
 */
public final class FleetTrafficRedis implements FleetTraffic {

  /** How long a reading counts: an instance that stopped publishing drops out of the sum after it. */
  public static final Duration TTL = Duration.ofSeconds(5);

  /** The longest a Redis command is waited for. */
  public static final Duration TIMEOUT = Duration.ofSeconds(1);

  /** The most resources an instance publishes (those with the most traffic in the last second). */
  public static final int MAX_RESOURCES = 100;

  /** The most instances summed, and kept in the set of publishing instances. */
  public static final int MAX_INSTANCES = 1000;

  /** The most resources in a sum: those first seen. */
  public static final int MAX_SUMMED = 1000;

  /**
   * The most fields read for one sum, over all instances: 200 instances of 100 resources. The
   * instances after it are left out of the sum (and counted as skipped).
   */
  public static final int MAX_FIELDS_READ = 20_000;

  /** The longest value read: nine numbers of at most 15 digits and the spaces between them. */
  static final int MAX_VALUE = 9 * 15 + 8;

  /** The longest resource name published and summed, in bytes. */
  public static final int MAX_NAME = 256;

  private static final Script PUBLISH = Script.load("traffic-publish.lua");
  private static final Script READ = Script.load("traffic-read.lua");

  private final LettuceConnectionFactory factory;
  private final String prefix;
  private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;
  private volatile @Nullable StatefulConnection<byte[], byte[]> stateful;
  private volatile @Nullable RedisConnection connection;

  /**
   * Creates the store; nothing is sent before the first call.
   *
   * @param factory the application's Lettuce connection factory ({@code weir.cluster}'s Redis)
   * @param keyPrefix {@code weir.cluster.key-prefix}, without braces
   */
  public FleetTrafficRedis(LettuceConnectionFactory factory, String keyPrefix) {
    if (keyPrefix.isBlank() || keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException("keyPrefix must be non-blank and without braces, was '" + keyPrefix + "'");
    }
    this.factory = factory;
    this.prefix = keyPrefix + ":{traffic}:";
  }

  /** The prefix of every key, hash tag included: {@code weir:{traffic}:}. */
  public String keyPrefix() {
    return prefix;
  }

  /** The key of the hash of instance {@code id}. */
  public String instanceKey(String id) {
    return prefix + "i:" + id;
  }

  /** The key of the set of publishing instances. */
  public String instancesKey() {
    return prefix + "instances";
  }

  @Override
  public Map<String, Map<String, Object>> summed() {
    Sum sum;
    try {
      sum = read();
    } catch (RedisUnreachable e) {
      return Map.of();
    }
    Map<String, Map<String, Object>> out = new LinkedHashMap<>();
    sum.resources().forEach((name, reading) -> {
      Map<String, Object> json = new LinkedHashMap<>();
      json.put("passQps", reading.passQps());
      json.put("blockQps", reading.blockQps());
      json.put("successQps", reading.successQps());
      json.put("exceptionQps", reading.exceptionQps());
      json.put("activeCalls", reading.activeCalls());
      out.put(name, json);
    });
    return out;
  }

  /**
   * Reads the sum of the live instances' readings.
   *
   * @throws RedisUnreachable when Redis does not answer
   */
  public Sum read() {
    List<Object> reply = run(READ, new byte[][] {bytes(instancesKey())},
        ascii(TTL.toMillis()), ascii(MAX_INSTANCES), bytes(prefix + "i:"), ascii(MAX_RESOURCES), ascii(MAX_FIELDS_READ),
        ascii(MAX_NAME), ascii(MAX_VALUE));
    Map<String, long[]> sums = new LinkedHashMap<>();
    if (reply == null || reply.size() < 2) {
      return new Sum(0, 0, Map.of());
    }
    long[] numbers = new long[9];
    for (int i = 2; i + 1 < reply.size(); i += 2) {
      if (reply.get(i) instanceof byte[] name && reply.get(i + 1) instanceof byte[] value && parse(value, numbers)) {
        String resource = new String(name, StandardCharsets.UTF_8);
        long[] sum = sums.get(resource);
        if (sum == null) {
          if (sums.size() >= MAX_SUMMED) {
            continue;
          }
          sum = new long[9];
          sums.put(resource, sum);
        }
        for (int k = 0; k < 9; k++) {
          long added = sum[k] + numbers[k];
          sum[k] = added < 0 ? Long.MAX_VALUE : added; // both are at most MAX_VALUE: only overflow is negative
        }
      }
    }
    Map<String, Reading> resources = new LinkedHashMap<>();
    sums.forEach((name, n) -> resources.put(name, new Reading(n[0], n[1], n[2], n[3], n[4], n[5], n[6], n[7], n[8])));
    return new Sum((int) Math.max(0, count(reply.get(0))), (int) Math.max(0, count(reply.get(1))), resources);
  }

  /**
   * Reads a value of exactly nine decimal numbers of 1 to 15 digits separated by single spaces into
   * {@code into}; false for anything else.
   */
  static boolean parse(byte[] value, long[] into) {
    int k = 0;
    int digits = 0;
    long number = 0;
    for (int i = 0; i <= value.length; i++) {
      int b = i < value.length ? value[i] : ' ';
      if (b >= '0' && b <= '9') {
        if (++digits > 15) {
          return false;
        }
        number = number * 10 + (b - '0');
      } else if (b == ' ' && digits > 0 && k < 9) {
        into[k++] = number;
        number = 0;
        digits = 0;
      } else {
        return false;
      }
    }
    return k == 9;
  }

  /**
   * Replaces this instance's reading.
   *
   * @param id this instance's id
   * @param readings its reading per resource, at most {@link #MAX_RESOURCES}
   * @throws RedisUnreachable when Redis does not answer
   */
  public void publish(String id, Map<String, Reading> readings) {
    if (readings.size() > MAX_RESOURCES) {
      throw new IllegalArgumentException("at most " + MAX_RESOURCES + " resources, got " + readings.size());
    }
    List<byte[]> args = new ArrayList<>(3 + 2 * readings.size());
    args.add(bytes(id));
    args.add(ascii(TTL.toMillis()));
    args.add(ascii(MAX_INSTANCES));
    readings.forEach((resource, reading) -> {
      args.add(bytes(resource));
      args.add(ascii(reading.encoded()));
    });
    run(PUBLISH, new byte[][] {bytes(instanceKey(id)), bytes(instancesKey())}, args.toArray(byte[][]::new));
  }

  /**
   * Removes this instance's reading (a stopping instance leaves the sum at once).
   *
   * @throws RedisUnreachable when Redis does not answer
   */
  public void remove(String id) {
    await(commands().del(bytes(instanceKey(id))));
    await(commands().zrem(bytes(instancesKey()), bytes(id)));
  }

  /** Closes this store's handle on the connection; the factory's shared connection is the factory's. */
  public void close() {
    commands = null;
    stateful = null;
    RedisConnection opened = connection;
    connection = null;
    if (opened != null) {
      try {
        opened.close();
      } catch (RuntimeException e) {
        // closing anyway
      }
    }
  }

  private List<Object> run(Script script, byte[][] keys, byte[]... args) {
    RedisClusterAsyncCommands<byte[], byte[]> async = commands();
    try {
      return await(async.evalsha(script.sha, ScriptOutputType.MULTI, keys, args));
    } catch (RedisUnreachable e) {
      if (e.getMessage() == null || !e.getMessage().contains("NOSCRIPT")) {
        throw e;
      }
      // The server lost its script cache (restart, SCRIPT FLUSH, failover): EVAL loads it again.
      return await(async.eval(script.text, ScriptOutputType.MULTI, keys, args));
    }
  }

  private RedisClusterAsyncCommands<byte[], byte[]> commands() {
    RedisClusterAsyncCommands<byte[], byte[]> async = commands;
    if (async == null) {
      async = connect();
    }
    StatefulConnection<byte[], byte[]> open = stateful;
    if (open != null && !open.isOpen()) {
      // Lettuce would buffer the command until it reconnects and send a stale reading then.
      throw new RedisUnreachable("disconnected from Redis, reconnecting");
    }
    return async;
  }

  private synchronized RedisClusterAsyncCommands<byte[], byte[]> connect() {
    RedisClusterAsyncCommands<byte[], byte[]> async = commands;
    if (async != null) {
      return async;
    }
    try {
      RedisConnection opened = factory.getConnection();
      if (!(opened instanceof LettuceConnection lettuce)) {
        opened.close();
        throw new RedisUnreachable("the fleet's traffic needs a Lettuce connection, got " + opened.getClass().getName());
      }
      async = lettuce.getNativeConnection();
      stateful = async instanceof RedisAsyncCommands<byte[], byte[]> standalone ? standalone.getStatefulConnection()
          : async instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster
              ? cluster.getStatefulConnection() : null;
      connection = opened;
      commands = async;
      return async;
    } catch (RedisUnreachable e) {
      throw e;
    } catch (RuntimeException e) {
      throw new RedisUnreachable("cannot connect to Redis: " + e.getMessage());
    }
  }

  private static <T> T await(RedisFuture<T> future) {
    return RedisAwait.await(future, TIMEOUT);
  }

  /** A count the script answered (an integer reply); 0 for anything else. */
  private static long count(@Nullable Object value) {
    return value instanceof Long number ? number : 0;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] ascii(long number) {
    return Long.toString(number).getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * One resource's reading on one instance, or summed over the fleet.
   *
   * @param totalPassed permits ever admitted
   * @param totalBlocked permits ever refused
   * @param totalSucceeded calls ever completed without a recorded error
   * @param totalFailed calls ever completed with a recorded error
   * @param activeCalls admitted calls inside now
   * @param passQps permits admitted in the last second
   * @param blockQps permits refused in the last second
   * @param successQps calls completed without error in the last second
   * @param exceptionQps calls completed with an error in the last second
   */
  public record Reading(long totalPassed, long totalBlocked, long totalSucceeded, long totalFailed,
      long activeCalls, long passQps, long blockQps, long successQps, long exceptionQps) {

    String encoded() {
      return totalPassed + " " + totalBlocked + " " + totalSucceeded + " " + totalFailed + " " + activeCalls + " "
          + passQps + " " + blockQps + " " + successQps + " " + exceptionQps;
    }
  }

  /**
   * The sum over the live instances.
   *
   * @param instances the live instances summed
   * @param skipped the live instances whose hash was skipped (too many fields, no hash, or beyond
   *     {@link #MAX_FIELDS_READ})
   * @param resources the summed reading per resource, at most {@link #MAX_SUMMED}
   */
  public record Sum(int instances, int skipped, Map<String, Reading> resources) {
  }

  private record Script(String text, String sha) {

    static Script load(String name) {
      try (InputStream in = FleetTrafficRedis.class.getResourceAsStream(name)) {
        if (in == null) {
          throw new IllegalStateException("missing script " + name);
        }
        String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
        return new Script(text, HexFormat.of().formatHex(digest));
      } catch (IOException | NoSuchAlgorithmException e) {
        throw new IllegalStateException("cannot read script " + name, e);
      }
    }
  }
}
