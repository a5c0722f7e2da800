package dev.weir.internal.call;

import dev.weir.SystemStatus;
import dev.weir.internal.time.EngineLog;
import java.lang.System.Logger.Level;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Samples load and CPU once a second on a daemon thread, only while a system rule needs them; the
 * thread stops when no rule needs it any more and when the engine closes. Readings are volatile
 * doubles: a refusal decision reads a value at most one second old.
 */
final class SystemSampler {

  private static final System.Logger LOG = System.getLogger(EngineLog.NAME);

  private final SystemStatus status;
  private ScheduledExecutorService executor;
  private volatile double load = -1;
  private volatile double cpuUsage = -1;

  SystemSampler(SystemStatus status) {
    this.status = status;
  }

  synchronized void configure(boolean needed) {
    if (needed && executor == null) {
      sample();
      executor = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "weir-system-sampler");
        thread.setDaemon(true);
        return thread;
      });
      executor.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
    } else if (!needed && executor != null) {
      executor.shutdownNow();
      executor = null;
    }
  }

  void sample() {
    try {
      load = status.loadAverage();
      cpuUsage = status.cpuUsage();
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "Reading system load and CPU failed; system rules on them pass until it works", e);
      load = -1;
      cpuUsage = -1;
    }
  }

  double load() {
    return load;
  }

  double cpuUsage() {
    return cpuUsage;
  }
}
