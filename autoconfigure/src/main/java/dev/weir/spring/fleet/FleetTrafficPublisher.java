package dev.weir.spring.fleet;

import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Publishes this instance's traffic to the fleet once a second ({@link FleetTrafficRedis}), on a
 * thread of its own, from start to stop; on stop it removes its reading, so a stopped instance
 * leaves the sum at once, and one that dies leaves it after {@link FleetTrafficRedis#TTL}.
 *
 * <p>An engine with more than {@link FleetTrafficRedis#MAX_RESOURCES} resources publishes those
 * with the most traffic in the last second (permits admitted and refused, and calls inside), ties
 * by name: the hash stays small however many resources an application has, and the fleet's sum
 * shows the busy ones. A publication that fails (Redis unreachable, slow) is skipped and logged once
 * until one succeeds again; the next second publishes afresh.
 */
public final class FleetTrafficPublisher implements SmartLifecycle {

  private static final Log logger = LogFactory.getLog(FleetTrafficPublisher.class);

  private static final Comparator<ResourceStatistics> BUSIEST_FIRST =
      Comparator.comparingLong(FleetTrafficPublisher::traffic).reversed().thenComparing(ResourceStatistics::resource);

  private final Weir weir;
  private final FleetTrafficRedis redis;
  private final String id;
  private @Nullable ScheduledExecutorService scheduler;
  private boolean failing;

  /**
   * Creates the publisher; nothing is sent before {@link #start()} or {@link #publish()}.
   *
   * @param weir the engine whose resources are published
   * @param redis where to
   * @param id this instance's id, unique in the fleet
   */
  public FleetTrafficPublisher(Weir weir, FleetTrafficRedis redis, String id) {
    this.weir = weir;
    this.redis = redis;
    this.id = id;
  }

  /** This instance's id. */
  public String id() {
    return id;
  }

  /**
   * Publishes the reading of now, the resources with the most traffic first.
   *
   * @throws RedisUnreachable when Redis does not answer
   */
  public void publish() {
    redis.publish(id, reading());
  }

  /** The reading of now: at most {@link FleetTrafficRedis#MAX_RESOURCES} resources, the busiest. */
  Map<String, FleetTrafficRedis.Reading> reading() {
    List<ResourceStatistics> all = new ArrayList<>();
    for (String resource : weir.resources()) {
      ResourceStatistics statistics = weir.statistics(resource);
      if (statistics != null && resource.getBytes(java.nio.charset.StandardCharsets.UTF_8).length
          <= FleetTrafficRedis.MAX_NAME) {
        all.add(statistics);
      }
    }
    if (all.size() > FleetTrafficRedis.MAX_RESOURCES) {
      all.sort(BUSIEST_FIRST);
    }
    Map<String, FleetTrafficRedis.Reading> out = new LinkedHashMap<>();
    for (ResourceStatistics s : all.subList(0, Math.min(all.size(), FleetTrafficRedis.MAX_RESOURCES))) {
      out.put(s.resource(), new FleetTrafficRedis.Reading(s.totalPassed(), s.totalBlocked(), s.totalSucceeded(),
          s.totalFailed(), s.activeCalls(), s.passQps(), s.blockQps(), s.successQps(), s.exceptionQps()));
    }
    return out;
  }

  private static long traffic(ResourceStatistics statistics) {
    return statistics.passQps() + statistics.blockQps() + statistics.activeCalls();
  }

  private void publishLogged() {
    try {
      publish();
      if (failing) {
        failing = false;
        logger.info("Weir's fleet traffic is published again");
      }
    } catch (RuntimeException e) {
      if (Thread.currentThread().isInterrupted()) {
        return; // stopping: stop() removes the reading
      }
      if (!failing) {
        failing = true;
        logger.warn("Weir cannot publish this instance's traffic to the fleet (" + e.getMessage()
            + "); it tries again every second and says when it succeeds");
      }
    }
  }

  @Override
  public synchronized void start() {
    if (scheduler != null) {
      return;
    }
    ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(task -> {
      Thread thread = new Thread(task, "weir-fleet-traffic");
      thread.setDaemon(true);
      return thread;
    });
    started.scheduleWithFixedDelay(this::publishLogged, 0, 1, TimeUnit.SECONDS);
    scheduler = started;
  }

  @Override
  public synchronized void stop() {
    ScheduledExecutorService running = scheduler;
    if (running == null) {
      return;
    }
    scheduler = null;
    running.shutdownNow();
    try {
      running.awaitTermination(FleetTrafficRedis.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    // A publication still on its way is ahead of this removal on the same connection, so it cannot
    // bring the reading back; one that outlived the wait would, and then expires after the TTL.
    try {
      redis.remove(id);
    } catch (RuntimeException e) {
      // it drops out of the sum after the TTL instead
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return scheduler != null;
  }
}
