package dev.weir.spring.grpc;

import dev.weir.Entry;
import io.grpc.Status;

/**
 * How the status a gRPC call ends with completes its entry: {@code OK} closes it, {@code CANCELLED}
 * cancels it (the caller gave up: {@link Entry#cancel()}), any other status is a failure recorded
 * before the close.
 */
final class Outcomes {

  private Outcomes() {
  }

  /** Completes {@code entry} by {@code status}. */
  static void complete(Entry entry, Status status) {
    switch (status.getCode()) {
      case OK -> entry.close();
      case CANCELLED -> entry.cancel();
      default -> {
        Throwable cause = status.getCause();
        entry.recordError(cause != null ? cause : status.asRuntimeException());
        entry.close();
      }
    }
  }
}
