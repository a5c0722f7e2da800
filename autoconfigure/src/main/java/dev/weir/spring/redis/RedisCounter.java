package dev.weir.spring.redis;

import dev.weir.cluster.ClusterCounter;
import dev.weir.cluster.ClusterDecision;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The shared count of one limit (or of several decided together) in Redis: a decision is one call
 * of its decision script, a settlement one call of {@code settle.lua} on the same keys, which finds
 * the admission's state by the decision's time stamp.
 */
final class RedisCounter implements ClusterCounter {

  private final RedisClusterClient client;
  private final RedisScript script;
  private final byte[][] keys;
  private final IntFunction<byte[][]> arguments;
  /** For each key, its kind and three arguments of {@code settle.lua}. */
  private final byte[][] settling;

  /**
   * @param arguments the decision script's arguments for a call of the permits given
   * @param settling for each of {@code keys}, its kind ({@code w}, {@code x}, {@code g}, {@code l})
   *     and three arguments of {@code settle.lua}
   */
  RedisCounter(RedisClusterClient client, RedisScript script, byte[][] keys, IntFunction<byte[][]> arguments,
      byte[][] settling) {
    if (settling.length != 4 * keys.length) {
      throw new IllegalArgumentException("four settle arguments per key");
    }
    this.client = client;
    this.script = script;
    this.keys = keys;
    this.arguments = arguments;
    this.settling = settling;
  }

  @Override
  public CompletableFuture<ClusterDecision> acquire(int permits) {
    return client.send(script, keys, arguments.apply(permits), RedisDecision::decision);
  }

  /** One {@code settle.lua} call; completes with the permits each key's count changed by. */
  @Override
  public CompletableFuture<List<Long>> settle(long stampMicros, long delta) {
    byte[][] all = new byte[2 + settling.length][];
    all[0] = ascii(Long.toString(delta));
    all[1] = ascii(Long.toString(Math.max(0, stampMicros)));
    System.arraycopy(settling, 0, all, 2, settling.length);
    return client.send(RedisScript.SETTLE, keys, all, RedisCounter::applied);
  }

  /** Reads {@code settle.lua}'s reply: one change per key. */
  static List<Long> applied(@Nullable List<Long> reply) {
    if (reply == null) {
      throw new IllegalStateException("unexpected reply of the Weir settle script: null");
    }
    return reply;
  }

  static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }
}
