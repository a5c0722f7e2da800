package dev.weir.spring.fleet;

/**
 * Redis did not answer the fleet's rules store or traffic in time, or there is no connection now:
 * the operation may or may not have taken effect there (a write is then unknown, never half-applied
 * here). Thrown without a stack trace, as it is expected whenever Redis is away.
 */
public final class RedisUnreachable extends RuntimeException {

  private static final long serialVersionUID = 1L;

  RedisUnreachable(String message) {
    super(message, null, false, false);
  }
}
