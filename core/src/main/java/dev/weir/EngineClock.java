package dev.weir;

/**
 * The engine's ticker and sleeper together, handed to the limiters that wait. Waiting is
 * uninterruptible from the caller's point of view: an interrupt ends the wait early, the call is
 * still admitted (its slot is taken), and the thread's interrupt flag is restored.
 */
final class EngineClock {

  private final Ticker ticker;
  private final Sleeper sleeper;

  EngineClock(Ticker ticker, Sleeper sleeper) {
    this.ticker = ticker;
    this.sleeper = sleeper;
  }

  Ticker ticker() {
    return ticker;
  }

  long read() {
    return ticker.read();
  }

  void sleep(long nanos) {
    if (nanos <= 0) {
      return;
    }
    try {
      sleeper.sleep(nanos);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
