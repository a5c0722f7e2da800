package dev.weir;

/** {@link Ticker#system()}: one instance, so that the engine can tell real time from a driven ticker. */
final class SystemTicker implements Ticker {

  static final Ticker INSTANCE = new SystemTicker();

  private SystemTicker() {
  }

  @Override
  public long read() {
    return System.nanoTime();
  }
}
