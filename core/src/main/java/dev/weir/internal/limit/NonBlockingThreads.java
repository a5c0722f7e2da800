package dev.weir.internal.limit;

import org.jspecify.annotations.Nullable;

/**
 * Tells threads that must never block: those of Reactor's non-blocking schedulers and of
 * Reactor Netty's event loops, which implement the marker interface
 * {@code reactor.core.scheduler.NonBlocking}. Looked up once by name, so the engine needs no
 * Reactor; without Reactor no thread is such a thread.
 */
final class NonBlockingThreads {

  private static final @Nullable Class<?> MARKER = marker();

  private NonBlockingThreads() {
  }

  private static @Nullable Class<?> marker() {
    try {
      return Class.forName("reactor.core.scheduler.NonBlocking", false, NonBlockingThreads.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError absent) {
      try {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        return context == null ? null : Class.forName("reactor.core.scheduler.NonBlocking", false, context);
      } catch (ClassNotFoundException | LinkageError alsoAbsent) {
        return null;
      }
    }
  }

  /** Whether the calling thread must never block. */
  static boolean current() {
    Class<?> marker = MARKER;
    return marker != null && marker.isInstance(Thread.currentThread());
  }
}
