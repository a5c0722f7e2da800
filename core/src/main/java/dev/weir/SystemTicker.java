package dev.weir;

/** {@link Ticker} over {@link System#nanoTime()}; stateless, so one instance serves every engine. */
enum SystemTicker implements Ticker {
  INSTANCE;

  @Override
  public long read() {
    return System.nanoTime();
  }
}
