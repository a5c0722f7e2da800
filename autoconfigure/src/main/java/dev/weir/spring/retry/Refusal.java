package dev.weir.spring.retry;

import dev.weir.BlockException;
import org.jspecify.annotations.Nullable;

/** Tells a Weir refusal apart from a failure: a refusal is never retried. */
final class Refusal {

  /** Causes looked through; a longer chain (or a cycle) is not searched further. */
  private static final int MAX_DEPTH = 16;

  private Refusal() {
  }

  /** Whether {@code failure} is a {@link BlockException} or has one among its first causes. */
  static boolean in(@Nullable Throwable failure) {
    Throwable cause = failure;
    for (int depth = 0; cause != null && depth < MAX_DEPTH; depth++) {
      if (cause instanceof BlockException) {
        return true;
      }
      cause = cause.getCause();
    }
    return false;
  }
}
