package dev.weir;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A ticker the test drives, and a sleeper that advances it instead of waiting. */
public final class FakeTicker implements Ticker, Sleeper {

  private final AtomicLong nanos;
  private final AtomicLong slept = new AtomicLong();

  public FakeTicker() {
    // Deliberately far from zero and negative: engines must not assume nanoTime starts at 0.
    this(-7_777_777_777_777L);
  }

  public FakeTicker(long start) {
    this.nanos = new AtomicLong(start);
  }

  @Override
  public long read() {
    return nanos.get();
  }

  public void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }

  public void advanceNanos(long delta) {
    nanos.addAndGet(delta);
  }

  public void set(long value) {
    nanos.set(value);
  }

  /** Sleeping advances the clock, so queued calls proceed at once and the test sees the wait. */
  @Override
  public void sleep(long nanos) {
    slept.addAndGet(nanos);
    this.nanos.addAndGet(nanos);
  }

  public long totalSleptNanos() {
    return slept.get();
  }
}
