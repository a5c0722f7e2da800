package dev.weir.spring.fleet;

import dev.weir.spring.properties.InputLimits;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The rules store in Redis: the fleet's rules as one versioned document, its history, and the
 * heartbeats of the instances that follow it. Every key carries the hash tag {@code {rules}}, so
 * all of them live on one Redis Cluster slot and one script may touch them together:
 *
 * <ul>
 *   <li>{@code <prefix>:{rules}:version}: the current version, a decimal number (absent: the store
 *       is empty);
 *   <li>{@code <prefix>:{rules}:v:<n>}: the document of version n, JSON, at most
 *       {@link InputLimits#MAX_BYTES}; {@code <prefix>:{rules}:s:<n>}: its summary (time, author,
 *       what changed);
 *   <li>{@code <prefix>:{rules}:history}: the versions kept, newest first;
 *   <li>{@code <prefix>:{rules}:changed}: the channel each new version is published on;
 *   <li>{@code <prefix>:{rules}:i:<id>}: an instance's heartbeat (id, host, version, lastSeen, error),
 *       expiring {@link #INSTANCE_TTL} after it; {@code <prefix>:{rules}:instances}: the ids by the
 *       Redis time of their last heartbeat.
 * </ul>
 *
 * <p>A write is one script ({@code store-write.lua}), a compare-and-set on the version: the new
 * document, its summary, the version, the history and the publication, all or nothing. Reads are
 * bounded whatever the keys hold (anyone with access to Redis can write them): the version and a
 * document are read with {@code GETRANGE} up to their limits, instances and history by scripts that
 * return bounded lists of cut fields.
 *
 * <p>Every call waits at most {@link #TIMEOUT} and never queues behind a connection that is down:
 * it then fails at once with {@link RedisUnreachable}. The connection is opened by
 * {@link #connectIfNeeded()} only, on the caller's thread (the {@link FleetSync} thread).
 */
public final class RulesStore {

  /** The longest a store command is waited for. */
  public static final Duration TIMEOUT = Duration.ofSeconds(2);

  /** How long an instance counts as live after its last heartbeat. */
  public static final Duration INSTANCE_TTL = Duration.ofSeconds(5);

  /** The most instances the fleet view lists. */
  public static final int MAX_INSTANCES = 1000;

  /** The most characters of a heartbeat's field read back. */
  public static final int MAX_FIELD = 500;

  /** The most bytes of a version's summary read back. */
  public static final int MAX_SUMMARY = 4096;

  private static final byte[] WRITE = script("store-write.lua");
  private static final byte[] HEARTBEAT = script("store-heartbeat.lua");
  private static final byte[] INSTANCES = script("store-instances.lua");
  private static final byte[] HISTORY = script("store-history.lua");

  private final LettuceConnectionFactory factory;
  private final String prefix;
  private final int history;
  private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;
  private volatile @Nullable StatefulConnection<byte[], byte[]> stateful;
  private volatile @Nullable RedisConnection connection;

  /**
   * Creates the store; nothing is sent before {@link #connectIfNeeded()}.
   *
   * @param factory the application's Lettuce connection factory ({@code weir.cluster}'s Redis)
   * @param keyPrefix {@code weir.cluster.key-prefix}, without braces
   * @param history how many versions the history keeps ({@code weir.rules-store.history})
   */
  public RulesStore(LettuceConnectionFactory factory, String keyPrefix, int history) {
    if (keyPrefix.isBlank() || keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException("keyPrefix must be non-blank and without braces, was '" + keyPrefix + "'");
    }
    this.factory = factory;
    this.prefix = keyPrefix + ":{rules}:";
    this.history = history;
  }

  /** The channel each new version is published on. */
  public String channel() {
    return prefix + "changed";
  }

  /** The prefix of every key of the store, hash tag included: {@code weir:{rules}:}. */
  public String keyPrefix() {
    return prefix;
  }

  /** How many versions the history keeps. */
  public int historySize() {
    return history;
  }

  /** Whether a connection was opened (Lettuce reconnects it by itself after that). */
  public boolean connected() {
    return commands != null;
  }

  /**
   * Opens the connection when none is open yet.
   *
   * @throws RedisUnreachable when it cannot be opened now
   */
  public void connectIfNeeded() {
    if (commands != null) {
      return;
    }
    try {
      RedisConnection opened = factory.getConnection();
      if (!(opened instanceof LettuceConnection lettuce)) {
        opened.close();
        throw new RedisUnreachable("the rules store needs a Lettuce connection, got " + opened.getClass().getName());
      }
      RedisClusterAsyncCommands<byte[], byte[]> async = lettuce.getNativeConnection();
      stateful = async instanceof RedisAsyncCommands<byte[], byte[]> standalone ? standalone.getStatefulConnection()
          : async instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster
              ? cluster.getStatefulConnection() : null;
      connection = opened;
      commands = async;
    } catch (RedisUnreachable e) {
      throw e;
    } catch (RuntimeException e) {
      throw new RedisUnreachable("cannot connect to Redis: " + e.getMessage());
    }
  }

  /**
   * Returns the current version, or 0 when the store is empty.
   *
   * @throws RedisUnreachable when Redis does not answer
   * @throws Garbage when the version key holds no version
   */
  public long version() {
    byte[] raw = await(commands().getrange(key("version"), 0, 20));
    if (raw == null || raw.length == 0) {
      return 0;
    }
    return parseVersion(raw);
  }

  /**
   * Returns the document of {@code version}: at most {@link InputLimits#MAX_BYTES} and one byte are
   * read, so a longer one is seen to be too long without being read whole; null when there is none.
   */
  public byte @Nullable [] document(long version) {
    byte[] raw = await(commands().getrange(key("v:" + version), 0, InputLimits.MAX_BYTES));
    return raw == null || raw.length == 0 ? null : raw;
  }

  /**
   * Writes {@code document} as the version after {@code expected}, if that is still the current
   * version (0: the store is empty).
   *
   * @param expected the version the write is based on
   * @param floor the new version is above this too (the highest version the writer knows of)
   * @param document the new document, JSON
   * @param summary its summary, JSON
   * @return the outcome: written with its version, or the version found current instead
   * @throws RedisUnreachable when Redis does not answer; the write may then have been stored or not
   * @throws Garbage when the version key holds no version
   */
  public Written write(long expected, long floor, byte[] document, byte[] summary) {
    List<Object> reply = await(commands().eval(WRITE, ScriptOutputType.MULTI,
        new byte[][] {key("version"), key("history")},
        ascii(Long.toString(expected)), ascii(Long.toString(Math.max(0, floor))), document, summary,
        ascii(Integer.toString(history)), bytes(prefix), bytes(channel())));
    if (reply == null || reply.size() != 2 || !(reply.get(0) instanceof Long outcome)
        || !(reply.get(1) instanceof Long version)) {
      throw new Garbage("the store answered a write with " + reply);
    }
    if (outcome < 0) {
      throw new Garbage("the version key " + prefix + "version holds no version");
    }
    return new Written(outcome == 1, version);
  }

  /**
   * Announces this instance.
   *
   * @param id its id
   * @param host its host name
   * @param version the version it applies, -1 for none
   * @param error what it refused, or its state, '' for nothing
   */
  public void heartbeat(String id, String host, long version, String error) {
    await(commands().eval(HEARTBEAT, ScriptOutputType.INTEGER,
        new byte[][] {key("i:" + id), key("instances")},
        bytes(id), bytes(host), ascii(Long.toString(version)), bytes(error),
        ascii(Long.toString(INSTANCE_TTL.toMillis()))));
  }

  /** Returns the live instances, at most {@link #MAX_INSTANCES}, each field cut to {@link #MAX_FIELD} characters. */
  public List<Instance> instances() {
    List<Object> reply = await(commands().eval(INSTANCES, ScriptOutputType.MULTI, new byte[][] {key("instances")},
        ascii(Long.toString(INSTANCE_TTL.toMillis())), ascii(Integer.toString(MAX_INSTANCES)), bytes(prefix + "i:"),
        ascii(Integer.toString(MAX_FIELD))));
    List<Instance> out = new ArrayList<>();
    if (reply == null) {
      return out;
    }
    for (int i = 0; i + 4 < reply.size(); i += 5) {
      out.add(new Instance(text(reply.get(i)), text(reply.get(i + 1)), text(reply.get(i + 2)),
          text(reply.get(i + 3)), text(reply.get(i + 4))));
    }
    return out;
  }

  /** Returns the versions kept, newest first, each with its summary (empty when missing; cut to {@link #MAX_SUMMARY} and one byte). */
  public List<Kept> history() {
    List<Object> reply = await(commands().eval(HISTORY, ScriptOutputType.MULTI, new byte[][] {key("history")},
        ascii(Integer.toString(history)), bytes(prefix), ascii(Integer.toString(MAX_SUMMARY))));
    List<Kept> out = new ArrayList<>();
    if (reply == null) {
      return out;
    }
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      String version = text(reply.get(i));
      long parsed;
      try {
        parsed = parseVersion(version.getBytes(StandardCharsets.UTF_8));
      } catch (Garbage garbage) {
        continue; // not a version: someone wrote to the list; it names no document
      }
      out.add(new Kept(parsed, reply.get(i + 1) instanceof byte[] summary ? summary : new byte[0]));
    }
    return out;
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

  static long parseVersion(byte[] raw) {
    if (raw.length == 0 || raw.length > 18) {
      throw new Garbage("the store's version is not a number of at most 18 digits");
    }
    long value = 0;
    for (byte b : raw) {
      if (b < '0' || b > '9') {
        throw new Garbage("the store's version is not a number: '" + printable(raw) + "'");
      }
      value = value * 10 + (b - '0');
    }
    return value;
  }

  private static String printable(byte[] raw) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < Math.min(raw.length, 20); i++) {
      char c = (char) (raw[i] & 0xff);
      out.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return out.toString();
  }

  private RedisClusterAsyncCommands<byte[], byte[]> commands() {
    RedisClusterAsyncCommands<byte[], byte[]> async = commands;
    if (async == null) {
      throw new RedisUnreachable("not connected to Redis yet");
    }
    StatefulConnection<byte[], byte[]> open = stateful;
    if (open != null && !open.isOpen()) {
      // Lettuce would buffer the command until it reconnects and run it then, long after the
      // caller gave up on it (a write answered 503 must not be stored later): refuse it now.
      throw new RedisUnreachable("disconnected from Redis, reconnecting");
    }
    return async;
  }

  private static <T> T await(RedisFuture<T> future) {
    return RedisAwait.await(future, TIMEOUT);
  }

  private byte[] key(String name) {
    return bytes(prefix + name);
  }

  private static String text(@Nullable Object value) {
    return value instanceof byte[] raw ? new String(raw, StandardCharsets.UTF_8) : value == null ? "" : value.toString();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] script(String name) {
    try (InputStream in = RulesStore.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is missing from the classpath");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + name, e);
    }
  }

  /**
   * The outcome of a write.
   *
   * @param written whether the new version was stored
   * @param version the new version when written, else the version found current
   */
  public record Written(boolean written, long version) {
  }

  /**
   * A live instance as its heartbeat says, every field as text (untrusted, cut).
   *
   * @param id its id
   * @param host its host
   * @param version the version it applies ({@code -1}: none)
   * @param lastSeen the Redis time of its last heartbeat, in ms since the epoch
   * @param error what it refused or its state; empty for nothing
   */
  public record Instance(String id, String host, String version, String lastSeen, String error) {
  }

  /**
   * A version kept in the history.
   *
   * @param version the version
   * @param summary its summary, JSON as stored (untrusted; empty when missing)
   */
  public record Kept(long version, byte[] summary) {
  }

  /** A key of the store holds what the store never writes there. */
  public static final class Garbage extends RuntimeException {

    private static final long serialVersionUID = 1L;

    Garbage(String message) {
      super(message, null, false, false);
    }
  }
}
