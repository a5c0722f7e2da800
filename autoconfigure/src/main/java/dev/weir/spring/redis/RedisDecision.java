package dev.weir.spring.redis;

import dev.weir.cluster.ClusterDecision;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * One script call in Redis (a decision, a lease or a give-back), read into a {@code T}:
 * {@code EVALSHA}, then {@code EVAL} once if Redis answers {@code NOSCRIPT}.
 *
 * <p>Cancelling it (the engine does when the deadline passed) cancels the Lettuce command in
 * flight. Lettuce never writes a cancelled command: one still in its buffer, or one it would send
 * again after a reconnect, is dropped, so a decision given up on during an outage cannot be counted
 * later by the Redis that comes back. A command Redis already received still runs there.
 */
final class RedisDecision<T> extends CompletableFuture<T> implements BiConsumer<List<Long>, Throwable> {

  private final RedisClusterAsyncCommands<byte[], byte[]> commands;
  private final RedisScript script;
  private final byte[][] keys;
  private final byte[][] arguments;
  private final Function<@Nullable List<Long>, T> reading;
  private volatile @Nullable RedisFuture<List<Long>> command;
  private boolean reloaded; // written and read by the callback only, which runs once per command

  RedisDecision(RedisClusterAsyncCommands<byte[], byte[]> commands, RedisScript script, byte[][] keys,
      byte[][] arguments, Function<@Nullable List<Long>, T> reading) {
    this.commands = commands;
    this.script = script;
    this.keys = keys;
    this.arguments = arguments;
    this.reading = reading;
  }

  RedisDecision<T> start() {
    send(commands.evalsha(script.sha, ScriptOutputType.MULTI, keys, arguments));
    return this;
  }

  private void send(RedisFuture<List<Long>> sent) {
    command = sent;
    if (isCancelled()) {
      sent.cancel(false); // cancelled between the two commands
    }
    sent.whenComplete(this);
  }

  @Override
  public void accept(@Nullable List<Long> reply, @Nullable Throwable failure) {
    if (failure == null) {
      try {
        complete(reading.apply(reply));
      } catch (RuntimeException e) {
        completeExceptionally(e);
      }
    } else if (!reloaded && !isDone() && unwrap(failure) instanceof RedisNoScriptException) {
      reloaded = true;
      send(commands.eval(script.bytes, ScriptOutputType.MULTI, keys, arguments));
    } else {
      completeExceptionally(failure);
    }
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    RedisFuture<List<Long>> sent = command;
    if (sent != null) {
      sent.cancel(false);
    }
    return cancelled;
  }

  /** Reads a decision script's reply. */
  static ClusterDecision decision(@Nullable List<Long> reply) {
    if (reply == null || reply.size() < 3 || reply.size() > 5) {
      throw new IllegalStateException("unexpected reply of the Weir script: " + reply);
    }
    long stamp = reply.size() >= 4 ? Math.max(0L, reply.get(3)) : 0L;
    int refusedBy = reply.size() == 5 ? (int) Math.max(0L, Math.min(Integer.MAX_VALUE, reply.get(4))) : 0;
    return new ClusterDecision(reply.get(0) == 1L, Math.max(0L, reply.get(1)), Math.max(0L, reply.get(2)), stamp,
        refusedBy);
  }

  private static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
  }
}
