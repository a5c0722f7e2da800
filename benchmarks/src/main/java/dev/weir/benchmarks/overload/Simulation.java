package dev.weir.benchmarks.overload;

import dev.weir.Criticality;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * A simulated service on driven time, one event at a time: Poisson arrivals, a contender deciding
 * each one, {@code workers} serving admitted requests in FIFO order from a bounded queue (a request
 * that finds the queue full fails at once), log-normal service times. The client gives up at its
 * deadline, but the service does not know: it still serves the request, and the contender measures
 * its whole time. Goodput is the requests completed within the deadline.
 */
final class Simulation {

  static final RuntimeException FAILED = new IllegalStateException("queue full") {
    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;
    }
  };

  static final long MS = 1_000_000L;
  static final long SECOND = 1_000_000_000L;

  /** The service: workers at full capacity, the queue in front of them, the service time. */
  static final int WORKERS = 40;
  static final int QUEUE = 1000;
  static final double MEAN_SERVICE_MS = 20;
  static final double SIGMA = 0.5;
  /** Requests per second the service completes at full capacity. */
  static final double CAPACITY = WORKERS * 1000 / MEAN_SERVICE_MS;
  /** The client's deadline. */
  static final long DEADLINE = 250 * MS;
  /** The time series' resolution. */
  static final long BUCKET = SECOND;
  private static final long IN_FLIGHT_SAMPLE = 10 * MS;

  /** One request. */
  static final class Request {
    long arrival;
    long finish;
    Criticality criticality;
    /** Arrived within the measured span: its outcome counts in the totals. */
    boolean measured;
    Object handle;
  }

  /** What the run does over time. */
  interface Schedule {
    /** The offered load at {@code t}, as a multiple of {@link #CAPACITY}. */
    double load(long t);

    /** The workers at {@code t}. */
    int workers(long t);

    /** The next time after {@code t} that {@link #workers} changes, or {@code Long.MAX_VALUE}. */
    long nextChange(long t);
  }

  long now;
  private final SplittableRandom random;
  private final Schedule schedule;
  private final long end;
  private final long measureFrom;
  private final long measureTo;
  private final double serviceMu;
  private final PriorityQueue<Request> serving = new PriorityQueue<>((a, b) -> Long.compare(a.finish, b.finish));
  private final ArrayDeque<Request> queue = new ArrayDeque<>();
  private int workers;
  private int inside;

  // of the requests that arrived in [measureFrom, measureTo)
  long arrivals;
  long refused;
  /** Arrivals and refusals by {@link Criticality#rank()}. */
  final long[] arrivalsByRank = new long[4];
  final long[] refusedByRank = new long[4];
  long failed;
  long completed;
  long good;
  long criticalPlusArrivals;
  long criticalPlusGood;
  private long[] latencies = new long[1 << 16];
  private int latencyCount;
  // time series over the whole run, one value per bucket
  final double[] goodput;
  final double[] inFlight;
  final double[] limit;
  private final long[] inFlightSum;
  private final int[] inFlightSamples;

  /**
   * A run to {@code end} whose totals count the requests that arrived in
   * {@code [measureFrom, measureTo)}, wherever they completed; {@code measureTo} at least a second
   * before {@code end}, so that each of them has completed or missed its deadline.
   */
  Simulation(long seed, Schedule schedule, long end, long measureFrom, long measureTo) {
    this.random = new SplittableRandom(seed);
    this.schedule = schedule;
    this.end = end;
    this.measureFrom = measureFrom;
    this.measureTo = measureTo;
    this.serviceMu = Math.log(MEAN_SERVICE_MS * MS) - SIGMA * SIGMA / 2;
    int buckets = (int) (end / BUCKET) + 1;
    this.goodput = new double[buckets];
    this.inFlight = new double[buckets];
    this.limit = new double[buckets];
    this.inFlightSum = new long[buckets];
    this.inFlightSamples = new int[buckets];
  }

  /** Runs the whole schedule against {@code contender}. */
  void run(Contender contender) {
    workers = schedule.workers(0);
    long nextArrival = nextArrival(0);
    long nextSample = 0;
    long nextChange = schedule.nextChange(0);
    Arrays.fill(limit, -1);
    while (true) {
      long nextCompletion = serving.isEmpty() ? Long.MAX_VALUE : serving.peek().finish;
      long t = Math.min(Math.min(nextArrival, nextCompletion), Math.min(nextSample, nextChange));
      if (t >= end) {
        break;
      }
      now = t;
      if (t == nextCompletion) {
        complete(contender, serving.poll());
      } else if (t == nextChange) {
        workers = schedule.workers(t);
        startQueued();
        nextChange = schedule.nextChange(t);
      } else if (t == nextSample) {
        int bucket = (int) (t / BUCKET);
        inFlightSum[bucket] += inside;
        inFlightSamples[bucket]++;
        limit[bucket] = contender.limit();
        nextSample += IN_FLIGHT_SAMPLE;
      } else {
        arrive(contender);
        nextArrival = nextArrival(t);
      }
    }
    for (int i = 0; i < inFlight.length; i++) {
      inFlight[i] = inFlightSamples[i] == 0 ? 0 : (double) inFlightSum[i] / inFlightSamples[i];
      goodput[i] /= (double) BUCKET / SECOND;
    }
  }

  private long nextArrival(long t) {
    double rate = schedule.load(t) * CAPACITY / SECOND;
    return t + Math.max(1, (long) (-Math.log(1 - random.nextDouble()) / rate));
  }

  private void arrive(Contender contender) {
    Request request = new Request();
    request.arrival = now;
    double draw = random.nextDouble();
    request.criticality = draw < 0.1 ? Criticality.CRITICAL_PLUS : draw < 0.4 ? Criticality.CRITICAL
        : Criticality.SHEDDABLE;
    boolean measured = now >= measureFrom && now < measureTo;
    request.measured = measured;
    if (measured) {
      arrivals++;
      arrivalsByRank[request.criticality.rank()]++;
      if (request.criticality == Criticality.CRITICAL_PLUS) {
        criticalPlusArrivals++;
      }
    }
    if (!contender.admit(request)) {
      if (measured) {
        refused++;
        refusedByRank[request.criticality.rank()]++;
      }
      return;
    }
    inside++;
    if (serving.size() < workers) {
      start(request);
    } else if (queue.size() < QUEUE) {
      queue.add(request);
    } else {
      inside--;
      if (measured) {
        failed++;
      }
      contender.complete(request, true);
    }
  }

  private void start(Request request) {
    request.finish = now + Math.max(1, (long) Math.exp(serviceMu + SIGMA * gaussian()));
    serving.add(request);
  }

  private double gaussian() {
    double u = 1 - random.nextDouble();
    double v = random.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  private void startQueued() {
    while (serving.size() < workers && !queue.isEmpty()) {
      start(queue.poll());
    }
  }

  private void complete(Contender contender, Request request) {
    inside--;
    long latency = now - request.arrival;
    boolean inTime = latency <= DEADLINE;
    if (inTime) {
      goodput[(int) (now / BUCKET)]++;
    }
    if (request.measured) {
      completed++;
      if (inTime) {
        good++;
        if (request.criticality == Criticality.CRITICAL_PLUS) {
          criticalPlusGood++;
        }
      }
      if (latencyCount == latencies.length) {
        latencies = Arrays.copyOf(latencies, latencyCount * 2);
      }
      latencies[latencyCount++] = latency;
    }
    contender.complete(request, false);
    startQueued();
  }

  /** The {@code p}-quantile of the measured latencies of admitted, completed requests, in ms. */
  double latencyQuantileMillis(double p) {
    if (latencyCount == 0) {
      return Double.NaN;
    }
    long[] sorted = Arrays.copyOf(latencies, latencyCount);
    Arrays.sort(sorted);
    return sorted[Math.min(latencyCount - 1, (int) Math.ceil(p * latencyCount) - 1)] / (double) MS;
  }
}
