package dev.weir;

/**
 * {@code exact: true}: never more than {@code count} admissions in any half-open span
 * {@code [t, t + interval)}, for every real {@code t}, not only at bucket edges.
 *
 * <p>It keeps a ring of the times of the last {@code count} admissions. A call is admitted when the
 * oldest of those (for {@code k} permits, the k-th oldest) lies at least {@code interval} in the
 * past; then the {@code count + 1}-th newest admission and the new one are at least
 * {@code interval} apart, so no span of that length can hold both. Memory is one {@code long} per
 * permit of {@code count}, which is why validation caps {@code count} at
 * {@link dev.weir.rule.FlowRule#EXACT_MAX_COUNT}. Check and record happen under this object's lock;
 * the critical section is a few array accesses.
 *
 * <p>A reading older than the newest recorded admission means the ticker went back; the ring is
 * cleared rather than refusing until the clock catches up.
 */
final class ExactLimiter extends FlowLimiter {

  private final long intervalNanos;
  private final long[] times;
  private int oldest;
  private int size;

  ExactLimiter(long intervalNanos, double count) {
    this.intervalNanos = intervalNanos;
    this.times = new long[(int) count];
  }

  @Override
  synchronized long tryAcquire(int permits, long now) {
    int capacity = times.length;
    if (permits > capacity) {
      return refused(0);
    }
    if (size > 0 && now - times[(oldest + size - 1) % capacity] < 0) {
      size = 0; // the ticker went back
    }
    int mustExpire = size + permits - capacity;
    if (mustExpire > 0) {
      long kthOldest = times[(oldest + mustExpire - 1) % capacity];
      long age = now - kthOldest;
      if (age < intervalNanos) {
        return refused(intervalNanos - age);
      }
      oldest = (oldest + mustExpire) % capacity;
      size -= mustExpire;
    }
    for (int i = 0; i < permits; i++) {
      times[(oldest + size) % capacity] = now;
      size++;
    }
    return 0;
  }
}
