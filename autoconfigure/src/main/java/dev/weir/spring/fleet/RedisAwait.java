package dev.weir.spring.fleet;

import io.lettuce.core.RedisFuture;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for one Redis reply of the fleet's store and traffic, at most {@code timeout}: a reply that
 * does not come in time is cancelled, and every way of not getting one (timeout, interrupt, error)
 * becomes a {@link RedisUnreachable}, with the interrupt kept.
 */
final class RedisAwait {

  private RedisAwait() {
  }

  static <T> T await(RedisFuture<T> future, Duration timeout) {
    try {
      return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      future.cancel(false);
      throw new RedisUnreachable("Redis did not answer within " + timeout.toMillis() + " ms");
    } catch (InterruptedException e) {
      future.cancel(false);
      Thread.currentThread().interrupt();
      throw new RedisUnreachable("interrupted while waiting for Redis");
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      throw new RedisUnreachable(cause.getClass().getSimpleName() + ": " + cause.getMessage());
    } catch (RuntimeException e) {
      throw new RedisUnreachable(e.getClass().getSimpleName() + ": " + e.getMessage());
    }
  }
}
