package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.CircuitState;
import dev.weir.ClusterStatus;
import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.cluster.FallbackReason;
import dev.weir.spring.redis.RedisClusterClient;
import dev.weir.spring.test.WaitClock;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * What the cluster fault tests share: an instance of {@link ClusterFaultApplication} on a given
 * Redis port, bounded waits on real time, the cluster counters as a value, a multi-threaded load
 * that records every call's outcome and duration, and a sampler of the breaker and of the JVM's
 * threads.
 *
 * <p>These tests run on real time against a real {@code redis-server}, on machines busy with other
 * work: every wait is a bounded poll of something observable. What a call may wait is asserted on
 * the time it waited by its own doing ({@link WaitClock}), not on its wall-clock time, which on a
 * busy machine is mostly the time the machine took from its thread: the engine promises that a
 * decision waits for the store at most the deadline, and a busy machine can make a call late but
 * cannot make it wait for the store longer.
 */
final class ClusterFaults {

  /** The bound of every wait for something to happen (a connect, a recovery). */
  static final Duration WAIT = Duration.ofSeconds(10);

  /**
   * What a call may wait by its own doing beyond the decision deadline: the pause between a load's
   * calls (0.2 ms), timer slack, the witness's period and the kernel's tick in {@link WaitClock},
   * hand-offs of a lock whose holder the machine descheduled. A second wait for the store, a wait
   * for the client's own timeouts, for a connect, for the breaker's open period or for the fault to
   * end each takes more.
   */
  static final Duration MARGIN = Duration.ofMillis(25);

  private ClusterFaults() {
  }

  /**
   * Starts an instance on {@code port} with a 50 ms deadline, 3 failures to open the breaker for
   * 200 ms, and one cluster-mode rule on {@link ClusterFaultApplication#RESOURCE} of 20 per second;
   * {@code overrides} replace or add properties. Does not wait for the connection.
   */
  static ConfigurableApplicationContext start(int port, Map<String, String> overrides) {
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("spring.main.banner-mode", "off");
    properties.put("spring.data.redis.host", "127.0.0.1");
    properties.put("spring.data.redis.port", Integer.toString(port));
    properties.put("weir.cluster.enabled", "true");
    properties.put("weir.cluster.key-prefix", "faults");
    properties.put("weir.cluster.timeout", "50ms");
    properties.put("weir.cluster.failure-threshold", "3");
    properties.put("weir.cluster.open-duration", "200ms");
    properties.put("weir.cluster.fallback", "local");
    properties.put("weir.flow[0].resource", ClusterFaultApplication.RESOURCE);
    properties.put("weir.flow[0].count", "20");
    properties.put("weir.flow[0].interval", "1s");
    properties.put("weir.flow[0].cluster-mode", "true");
    properties.putAll(overrides);
    return new SpringApplicationBuilder(ClusterFaultApplication.class)
        .web(WebApplicationType.NONE)
        .properties(properties)
        .run();
  }

  static ClusterFaultApplication.Guarded guarded(ConfigurableApplicationContext context) {
    return context.getBean(ClusterFaultApplication.Guarded.class);
  }

  static ClusterStatus status(ConfigurableApplicationContext context) {
    ClusterStatus status = context.getBean(Weir.class).cluster();
    assertThat(status).as("cluster mode is on").isNotNull();
    return status;
  }

  /** Waits until the client opened its connection (in the background). */
  static void awaitConnected(ConfigurableApplicationContext context) {
    RedisClusterClient client = context.getBean(RedisClusterClient.class);
    await("the Redis client connects", client::connected);
  }

  /**
   * Calls until the store admitted a call and the breaker is closed: the first decisions of a
   * fresh JVM (class loading, the first EVAL) may miss a 50 ms deadline and open the breaker.
   */
  static void awaitStoreAdmits(ClusterStatus status, Runnable call) {
    long admitted = status.admitted();
    await("the store admits a call", () -> {
      try {
        call.run();
      } catch (FlowException refused) {
        // The fallback or the store refused: try again.
      }
      return status.admitted() > admitted && status.breakerState() == CircuitState.CLOSED;
    });
  }

  /** Polls {@code condition} every 5 ms for up to {@link #WAIT}; returns the nanoseconds it took. */
  static long await(String what, BooleanSupplier condition) {
    long start = System.nanoTime();
    long deadline = start + WAIT.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() - deadline > 0) {
        throw new AssertionError("timed out after " + WAIT.toSeconds() + " s waiting until " + what);
      }
      sleep(5); // polling real time: a process, a socket, a background connect
    }
    return System.nanoTime() - start;
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  /** The SHA-1 Redis names the Weir script by, computed from the script on the classpath. */
  static String scriptSha() {
    return scriptSha("sliding-window.lua");
  }

  /**
   * The rule shapes every fault drill runs with, each decided by its own script: {@code window} (one
   * bucketed rule, {@code sliding-window.lua}), {@code exact} (one exact rule, {@code exact-window.lua}),
   * {@code two} (the bucketed rule and a second, generous, per-minute exact rule on the same
   * resource, decided together by {@code several-limits.lua}). {@code lease-window} and
   * {@code lease-exact} are the first two with {@code weir.cluster.lease} ({@code lease-window.lua}).
   */
  static final String[] SHAPES = {"window", "exact", "two"};

  /** The properties of {@code shape} (see {@link #SHAPES}) added to the rule {@code weir.flow[0]}. */
  static Map<String, String> shape(String shape, String... more) {
    Map<String, String> map = props(more);
    switch (shape) {
      case "window" -> { }
      case "exact" -> map.put("weir.flow[0].exact", "true");
      case "lease-window" -> map.put("weir.cluster.lease", "true");
      case "lease-exact" -> {
        map.put("weir.cluster.lease", "true");
        map.put("weir.flow[0].exact", "true");
      }
      case "two" -> {
        map.put("weir.flow[1].resource", ClusterFaultApplication.RESOURCE);
        map.put("weir.flow[1].count", "10000");
        map.put("weir.flow[1].interval", "1m");
        map.put("weir.flow[1].exact", "true");
        map.put("weir.flow[1].cluster-mode", "true");
      }
      default -> throw new IllegalArgumentException(shape);
    }
    return map;
  }

  /**
   * With leases ({@code lease-*} shapes), waits until Redis' last answers before a fault (kill,
   * SIGSTOP, failover) have stopped deciding on this instance, for a rule of {@code interval}: a
   * lease held then is spent until its end (its validity, a hundredth of the interval, 5 ms to 10 s),
   * and a refusal is kept for that long but at least 100 ms ({@code LeasedFlowLimiter}); 50 ms more
   * for timers. Decisions counted as Redis' after this were answered by it later. Without leases,
   * returns at once: a per-call decision ends with its call.
   */
  static void afterLastAnswers(String shape, Duration interval) {
    if (shape.startsWith("lease")) {
      long validity = Math.min(10_000, Math.max(5, interval.toMillis() / 100));
      sleep(Math.max(100, validity) + 50);
    }
  }

  /** The SHA-1 of the script that decides {@code shape}. */
  static String scriptSha(String shape, boolean byShape) {
    return scriptSha(switch (shape) {
      case "exact" -> "exact-window.lua";
      case "two" -> "several-limits.lua";
      case "lease-window", "lease-exact" -> "lease-window.lua";
      default -> "sliding-window.lua";
    });
  }

  /** The SHA-1 Redis names the script {@code name} by, computed from the script on the classpath. */
  static String scriptSha(String name) {
    try (InputStream in = RedisClusterClient.class.getResourceAsStream(name)) {
      assertThat(in).as(name + " on the classpath").isNotNull();
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(in.readAllBytes()));
    } catch (IOException | NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** The cluster counters at one instant. */
  record Counts(long admitted, long blocked, long[] byReason) {

    static Counts of(ClusterStatus status) {
      long[] byReason = new long[FallbackReason.values().length];
      for (FallbackReason reason : FallbackReason.values()) {
        byReason[reason.ordinal()] = status.fallbacks(reason);
      }
      return new Counts(status.admitted(), status.blocked(), byReason);
    }

    long fallbacks() {
      long sum = 0;
      for (long count : byReason) {
        sum += count;
      }
      return sum;
    }

    long fallbacks(FallbackReason reason) {
      return byReason[reason.ordinal()];
    }

    /** Decisions counted: by the store or by the fallback. */
    long decisions() {
      return admitted + blocked + fallbacks();
    }

    Counts minus(Counts earlier) {
      long[] difference = new long[byReason.length];
      for (int i = 0; i < difference.length; i++) {
        difference[i] = byReason[i] - earlier.byReason[i];
      }
      return new Counts(admitted - earlier.admitted, blocked - earlier.blocked, difference);
    }

    @Override
    public String toString() {
      StringBuilder text = new StringBuilder("admitted=" + admitted + " blocked=" + blocked);
      for (FallbackReason reason : FallbackReason.values()) {
        text.append(' ').append(reason.name().toLowerCase(java.util.Locale.ROOT)).append('=')
            .append(byReason[reason.ordinal()]);
      }
      return text.toString();
    }
  }

  /** Calls of a load, aggregated over a span of its time. */
  record Window(long attempts, long passed, long blocked, long waited, long maxNanos) {

    @Override
    public String toString() {
      return "attempts=" + attempts + " passed=" + passed + " blocked=" + blocked + " waited>=deadline=" + waited
          + " max=" + millis(maxNanos) + "ms";
    }
  }

  /**
   * Threads that call {@code call} over and over (with a 0.2 ms pause between calls) until stopped,
   * recording per 10 ms of start time: attempts, passes, {@link FlowException}s, calls that took at
   * least {@code deadline}, and the longest call; and, for every call that took at least the
   * deadline, what it waited by its own doing ({@link #longestOwnWait}). Anything else a call throws
   * is kept.
   */
  static final class Load implements AutoCloseable {

    private static final long BUCKET_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final int BUCKETS = 6_000; // a minute
    private static final long PAUSE_NANOS = 200_000;

    private final long origin = System.nanoTime();
    private final long deadlineNanos;
    private final Runnable call;
    private final List<Thread> threads = new ArrayList<>();
    private final List<long[][]> records = new ArrayList<>();
    private final List<List<WaitClock.Reading[]>> slowCalls = new ArrayList<>();
    private final ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    private final AtomicLong unexpectedCount = new AtomicLong();
    private volatile boolean stopping;

    Load(String name, int threadCount, Duration deadline, Runnable call) {
      this.deadlineNanos = deadline.toNanos();
      this.call = call;
      for (int i = 0; i < threadCount; i++) {
        long[][] record = new long[5][BUCKETS]; // attempts, passed, blocked, waited, max
        records.add(record);
        List<WaitClock.Reading[]> slow = new ArrayList<>();
        slowCalls.add(slow);
        Thread thread = new Thread(() -> run(record, slow), name + "-load-" + i);
        thread.setDaemon(true);
        threads.add(thread);
      }
      threads.forEach(Thread::start);
    }

    private void run(long[][] record, List<WaitClock.Reading[]> slow) {
      try (WaitClock clock = WaitClock.ofCurrentThread()) {
        while (!stopping) {
          WaitClock.Reading before = clock.read();
          long start = System.nanoTime();
          int outcome;
          try {
            call.run();
            outcome = 1;
          } catch (FlowException refused) {
            outcome = 2;
          } catch (Throwable other) {
            outcome = 0;
            if (unexpectedCount.incrementAndGet() <= 20) {
              unexpected.add(other);
            }
          }
          long took = System.nanoTime() - start;
          WaitClock.Reading after = clock.read();
          int bucket = (int) Math.min(BUCKETS - 1, (start - origin) / BUCKET_NANOS);
          record[0][bucket]++;
          if (outcome != 0) {
            record[outcome][bucket]++;
          }
          if (took >= deadlineNanos) {
            record[3][bucket]++;
            slow.add(new WaitClock.Reading[] {before, after});
          }
          if (took > record[4][bucket]) {
            record[4][bucket] = took;
          }
          LockSupport.parkNanos(PAUSE_NANOS);
        }
      }
    }

    /**
     * The longest any call waited by its own doing ({@link WaitClock#ownWait}), among the calls that
     * took at least the deadline (a shorter call waited less than that by any measure); 0 when none
     * did. Call after {@link #stop}.
     */
    long longestOwnWait() {
      long longest = 0;
      for (List<WaitClock.Reading[]> calls : slowCalls) {
        for (WaitClock.Reading[] call : calls) {
          longest = Math.max(longest, WaitClock.ownWait(call[0], call[1]));
        }
      }
      return longest;
    }

    /** Nanoseconds since the load started: the time line of {@link #window}. */
    long now() {
      return System.nanoTime() - origin;
    }

    /** Stops the threads and waits for them; after this the records are complete. */
    void stop() {
      stopping = true;
      for (Thread thread : threads) {
        try {
          thread.join(WAIT.toMillis());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError(e);
        }
        assertThat(thread.isAlive()).as(thread.getName() + " stopped").isFalse();
      }
    }

    /**
     * The calls that started in [{@code from}, {@code to}) of {@link #now()}, less those of the
     * 10 ms records that span either end; call after {@link #stop}.
     */
    Window window(long from, long to) {
      int first = (int) Math.max(0, (from + BUCKET_NANOS - 1) / BUCKET_NANOS);
      int last = (int) Math.min(BUCKETS, to / BUCKET_NANOS);
      long attempts = 0;
      long passed = 0;
      long blocked = 0;
      long waited = 0;
      long max = 0;
      for (long[][] record : records) {
        for (int b = first; b < last; b++) {
          attempts += record[0][b];
          passed += record[1][b];
          blocked += record[2][b];
          waited += record[3][b];
          max = Math.max(max, record[4][b]);
        }
      }
      return new Window(attempts, passed, blocked, waited, max);
    }

    /** Every call; call after {@link #stop}. */
    Window all() {
      return window(0, BUCKETS * BUCKET_NANOS);
    }

    /** What calls threw besides {@link FlowException} (the first 20). */
    List<Throwable> unexpected() {
      return List.copyOf(unexpected);
    }

    long unexpectedCount() {
      return unexpectedCount.get();
    }

    @Override
    public void close() {
      stopping = true;
    }
  }

  /**
   * Times calls made one after another on the thread that created it: the longest wall-clock time,
   * and the longest time a call waited by its own doing ({@link WaitClock}).
   */
  static final class CallTimer implements AutoCloseable {

    private final WaitClock clock = WaitClock.ofCurrentThread();
    private final List<WaitClock.Reading[]> calls = new ArrayList<>();
    private long longestWall;

    /** Runs {@code call} and times it; what it throws goes to the caller. */
    void time(Runnable call) {
      WaitClock.Reading before = clock.read();
      try {
        call.run();
      } finally {
        WaitClock.Reading after = clock.read();
        longestWall = Math.max(longestWall, after.wall() - before.wall());
        calls.add(new WaitClock.Reading[] {before, after});
      }
    }

    long longestWall() {
      return longestWall;
    }

    /** The longest a timed call waited by its own doing. */
    long longestOwnWait() {
      long longest = 0;
      for (WaitClock.Reading[] call : calls) {
        longest = Math.max(longest, WaitClock.ownWait(call[0], call[1]));
      }
      return longest;
    }

    @Override
    public void close() {
      clock.close();
    }
  }

  /**
   * The end of a fault, under load: Redis admits again (beyond {@code before}), the breaker is seen
   * closed, 200 ms more are sampled, the load stops and the decisions in flight settle.
   *
   * @param nanos from the call to {@link #after} to the first admission by Redis
   * @param at the load's clock at that admission
   * @param sampler what was sampled from then on
   * @param end the counts once everything settled
   */
  record Recovery(long nanos, long at, Sampler sampler, Counts end) {

    static Recovery after(String event, ClusterStatus status, Load load, Counts before) {
      long nanos = await("Redis admits again after " + event, () -> status.admitted() > before.admitted());
      long at = load.now();
      Sampler sampler = new Sampler(status);
      await("the breaker is closed after the recovery", () -> {
        sampler.sample();
        return sampler.closedSeen;
      });
      sampler.sampleFor(Duration.ofMillis(200));
      load.stop();
      await("the decisions in flight settle", () -> status.inFlight() == 0);
      return new Recovery(nanos, at, sampler, Counts.of(status));
    }
  }

  /** Samples the breaker, the decisions in flight and the JVM's live threads; on the calling thread. */
  static final class Sampler {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private final ClusterStatus status;
    boolean openSeen;
    boolean closedSeen;
    int maxInFlight;
    int maxThreads;
    long samples;

    Sampler(ClusterStatus status) {
      this.status = status;
    }

    static int liveThreads() {
      return THREADS.getThreadCount();
    }

    void sample() {
      CircuitState state = status.breakerState();
      openSeen |= state == CircuitState.OPEN;
      closedSeen |= state == CircuitState.CLOSED;
      maxInFlight = Math.max(maxInFlight, status.inFlight());
      maxThreads = Math.max(maxThreads, liveThreads());
      samples++;
    }

    /** Samples about every millisecond for {@code duration}. */
    void sampleFor(Duration duration) {
      long end = System.nanoTime() + duration.toNanos();
      while (System.nanoTime() - end < 0) {
        sample();
        LockSupport.parkNanos(1_000_000);
      }
    }

    @Override
    public String toString() {
      return "openSeen=" + openSeen + " closedSeen=" + closedSeen + " maxInFlight=" + maxInFlight + " maxThreads="
          + maxThreads + " samples=" + samples;
    }
  }

  /** Closes what a test opened, the first failure first, the others suppressed. */
  static void closeAll(AutoCloseable... closeables) {
    RuntimeException failure = null;
    for (AutoCloseable closeable : closeables) {
      if (closeable == null) {
        continue;
      }
      try {
        closeable.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new IllegalStateException("closing " + closeable, e);
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  static Map<String, String> props(String... keyValues) {
    Map<String, String> map = new LinkedHashMap<>();
    for (int i = 0; i < keyValues.length; i += 2) {
      map.put(keyValues[i], keyValues[i + 1]);
    }
    return map;
  }
}
