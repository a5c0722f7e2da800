package dev.weir.spring.keys;

/**
 * Why a key could not be computed for a call: the call counts as a null key. Made without a stack
 * trace, since the reason says what failed where.
 */
final class KeyFailure extends RuntimeException {

  private static final long serialVersionUID = 1L;

  KeyFailure(String reason) {
    super(reason, null, false, false);
  }

  KeyFailure(String reason, Throwable cause) {
    super(reason, cause, false, false);
  }
}
