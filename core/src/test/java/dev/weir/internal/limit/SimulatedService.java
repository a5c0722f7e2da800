package dev.weir.internal.limit;

import dev.weir.Criticality;
import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * A service on driven time in front of which an {@link AdaptiveLimiter} decides every request: Poisson
 * arrivals, {@code workers} serving admitted requests in FIFO order, exponential (or log-normal)
 * service times.
 * Deterministic for a seed; one thread. The test moves {@link #workers} and {@link #load} between
 * {@link #runFor} calls, and reads what happened per second.
 */
final class SimulatedService {

  static final long MS = 1_000_000L;
  static final long SECOND = 1_000_000_000L;

  /** One admitted request. */
  private static final class Request {
    long arrival;
    long finish;
  }

  private final AdaptiveLimiter limiter;
  private final SplittableRandom random;
  private final double meanServiceNanos;
  private final PriorityQueue<Request> serving = new PriorityQueue<>((a, b) -> Long.compare(a.finish, b.finish));
  private final ArrayDeque<Request> queue = new ArrayDeque<>();
  private long now;
  private long nextArrival;
  /** Workers now; the test may change it between runs. */
  int workers;
  /** Offered load now, as a multiple of the capacity of {@link #fullWorkers}; the test may change it. */
  double load;
  private final int fullWorkers;
  /** Share of arrivals of each criticality, by rank (SHEDDABLE first). */
  private final double[] mix;
  /**
   * 0: exponential service times; else log-normal ones of this sigma and the same mean (the
   * overload harness's service: 0.5).
   */
  double logNormalSigma;

  // counters since the last reset
  long arrivals;
  final long[] refusedByRank = new long[4];
  final long[] admittedByRank = new long[4];
  long completed;
  int mostInside;
  private long insideNanos;
  private long countedFrom;

  SimulatedService(AdaptiveLimiter limiter, long seed, int workers, double meanServiceMillis, double load,
      double[] mix) {
    this.limiter = limiter;
    this.random = new SplittableRandom(seed);
    this.workers = workers;
    this.fullWorkers = workers;
    this.meanServiceNanos = meanServiceMillis * MS;
    this.load = load;
    this.mix = mix;
    this.nextArrival = arrivalAfter(0);
  }

  /** Calls inside the service (serving and queued). */
  int inside() {
    return serving.size() + queue.size();
  }

  long now() {
    return now;
  }

  void resetCounters() {
    arrivals = 0;
    completed = 0;
    mostInside = 0;
    insideNanos = 0;
    countedFrom = now;
    java.util.Arrays.fill(refusedByRank, 0);
    java.util.Arrays.fill(admittedByRank, 0);
  }

  /** Mean calls inside the service since the last reset. */
  double meanInside() {
    return now == countedFrom ? 0 : (double) insideNanos / (now - countedFrom);
  }

  long refused() {
    long sum = 0;
    for (long r : refusedByRank) {
      sum += r;
    }
    return sum;
  }

  /** Runs {@code nanos} of driven time. */
  void runFor(long nanos) {
    long end = now + nanos;
    while (true) {
      startQueued();
      long nextCompletion = serving.isEmpty() ? Long.MAX_VALUE : serving.peek().finish;
      long t = Math.min(nextArrival, nextCompletion);
      if (t > end) {
        advanceTo(end);
        return;
      }
      advanceTo(t);
      if (t == nextCompletion) {
        Request done = serving.poll();
        limiter.complete(1, 0, done.arrival, now, AdaptiveLimiter.SUCCEEDED);
        completed++;
      } else {
        arrive();
        nextArrival = arrivalAfter(now);
      }
    }
  }

  private void advanceTo(long t) {
    insideNanos += (long) inside() * (t - now);
    now = t;
  }

  private void arrive() {
    arrivals++;
    double draw = random.nextDouble();
    int rank = 0;
    double sum = mix[0];
    while (draw >= sum && rank < 3) {
      sum += mix[++rank];
    }
    if (limiter.tryAcquire(1, now, Criticality.ofRank(rank)) < 0) {
      refusedByRank[rank]++;
      return;
    }
    admittedByRank[rank]++;
    Request request = new Request();
    request.arrival = now;
    queue.add(request);
    mostInside = Math.max(mostInside, inside());
  }

  private void startQueued() {
    while (serving.size() < workers && !queue.isEmpty()) {
      Request request = queue.poll();
      request.finish = now + Math.max(1, (long) serviceNanos());
      serving.add(request);
    }
  }

  private double serviceNanos() {
    if (logNormalSigma == 0) {
      return -Math.log(1 - random.nextDouble()) * meanServiceNanos;
    }
    double gaussian = Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    return Math.exp(Math.log(meanServiceNanos) - logNormalSigma * logNormalSigma / 2 + logNormalSigma * gaussian);
  }

  private long arrivalAfter(long t) {
    double perNano = load * fullWorkers / meanServiceNanos;
    return t + Math.max(1, (long) (-Math.log(1 - random.nextDouble()) / perNano));
  }
}
