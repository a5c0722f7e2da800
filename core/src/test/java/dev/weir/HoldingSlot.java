package dev.weir;

import dev.weir.spi.Invocation;
import dev.weir.spi.ProcessorSlot;
import dev.weir.spi.SlotOrder;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Makes one thread late, deterministically: a slot placed after the clock was read and before every
 * rule, that holds one chosen thread until the test releases it. The held call then reaches the
 * limiters with a reading older than everything the test did meanwhile, as a descheduled thread
 * does on a real machine.
 */
public final class HoldingSlot extends ProcessorSlot {

  private volatile @Nullable Thread target;
  private final CountDownLatch reached = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  @Override
  public int order() {
    return SlotOrder.SYSTEM + 1;
  }

  @Override
  public @Nullable BlockException entry(Invocation invocation) {
    if (Thread.currentThread() == target) {
      target = null;
      reached.countDown();
      await(release);
    }
    return null;
  }

  /** A call started on another thread and held after reading the clock. */
  public final class Held<T> {
    private final Thread thread;
    private final AtomicReference<T> result = new AtomicReference<>();

    private Held(Supplier<T> call) {
      thread = new Thread(() -> result.set(call.get()), "late");
      target = thread;
      thread.start();
      await(reached);
    }

    /** Lets the held call go on and returns what it returned. */
    public T release() {
      HoldingSlot.this.release.countDown();
      try {
        thread.join(TimeUnit.SECONDS.toMillis(10));
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
      if (thread.isAlive()) {
        throw new AssertionError("the late call did not finish within 10 s");
      }
      return result.get();
    }
  }

  /** Starts {@code call} on a new thread and returns once it has read the clock and is held. */
  public <T> Held<T> hold(Supplier<T> call) {
    return new Held<>(call);
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError("timed out waiting for the held call");
      }
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }
}
