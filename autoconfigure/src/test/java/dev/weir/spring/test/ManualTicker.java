package dev.weir.spring.test;

import dev.weir.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A {@link Ticker} that only moves when a test advances it. */
public final class ManualTicker implements Ticker {

  private final AtomicLong nanos = new AtomicLong(1_000_000_000_000L);

  @Override
  public long read() {
    return nanos.get();
  }

  /** Moves the time forward by {@code duration}. */
  public void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }
}
