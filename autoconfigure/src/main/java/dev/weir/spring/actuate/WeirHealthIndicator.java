package dev.weir.spring.actuate;

import dev.weir.CircuitState;
import dev.weir.ClusterStatus;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.spring.fleet.FleetSync;
import dev.weir.spring.rules.RuleSources;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code weir} health contributor. It is always {@code UP}: a circuit breaker that opened is
 * Weir doing its job, not the application failing, so Weir never turns the application's health
 * {@code DOWN} by itself. Its details name the resources whose circuit is not closed,
 * {@code "circuits": {"payment": "open", "search": "half_open"}}, and the state of the cluster
 * connection: {@code "cluster": "disabled"} without cluster mode, else the store, whether it
 * answered a {@code PING} within the cluster timeout (at least 250 ms) and how long it took, the
 * breaker state, the fallback, the decisions by outcome, those in flight and the last failure.
 * With rule sources, {@code "ruleSources"} names each source ({@code application.yml},
 * {@code sentinel:flow-file}, {@code file:/path/rules.yml}, {@code endpoint}) with {@code ok} or
 * what is wrong with it now (its content refused, nothing changed; or its file deleted), until a
 * valid version arrives. With the rules store, {@code "rulesStore"} has this instance's id, the
 * version it applies, whether Redis answered its last read ({@code connected}) or since when it has
 * not ({@code unreachableSince}), {@code "state": "store empty"} after a flush, and the error of a
 * version refused here.
 */
public final class WeirHealthIndicator implements HealthIndicator {

  private static final Duration MIN_PING = Duration.ofMillis(250);

  private final Weir weir;
  private final @Nullable RuleSources sources;
  private final @Nullable FleetSync store;

  /**
   * Creates the contributor.
   *
   * @param weir the engine whose circuits are reported
   */
  public WeirHealthIndicator(Weir weir) {
    this(weir, null);
  }

  /**
   * Creates the contributor, with the state of the engine's rule sources in its details.
   *
   * @param weir the engine whose circuits are reported
   * @param sources its rule sources; null to leave them out
   */
  public WeirHealthIndicator(Weir weir, @Nullable RuleSources sources) {
    this(weir, sources, null);
  }

  /**
   * Creates the contributor, with the state of the engine's rule sources and of the rules store in
   * its details.
   *
   * @param weir the engine whose circuits are reported
   * @param sources its rule sources; null to leave them out
   * @param store this instance's following of the rules store ({@code weir.rules-store}); null to
   *     leave it out
   */
  public WeirHealthIndicator(Weir weir, @Nullable RuleSources sources, @Nullable FleetSync store) {
    this.weir = weir;
    this.sources = sources;
    this.store = store;
  }

  @Override
  public Health health() {
    Map<String, String> circuits = new TreeMap<>();
    weir.rules().rulesByResource().forEach((resource, rules) -> {
      if (!rules.degrade().isEmpty()) {
        ResourceStatistics statistics = weir.statistics(resource);
        if (statistics != null && statistics.circuitState() != CircuitState.CLOSED) {
          circuits.put(resource, RulesJson.circuitState(statistics.circuitState()));
        }
      }
    });
    ClusterStatus cluster = weir.cluster();
    Health.Builder health = Health.up().withDetail("circuits", circuits)
        .withDetail("cluster", cluster == null ? "disabled" : cluster(cluster));
    if (sources != null) {
      health.withDetail("ruleSources", sources.status());
    }
    if (store != null) {
      health.withDetail("rulesStore", rulesStore(store));
    }
    return health.build();
  }

  /** The rules store as this instance follows it; read from what its thread last saw, no round trip. */
  static Map<String, Object> rulesStore(FleetSync store) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("instance", store.id());
    long version = store.appliedVersion();
    details.put("version", version < 0 ? null : version);
    details.put("connected", store.reachable());
    Instant since = store.unreachableSince();
    if (since != null) {
      details.put("unreachableSince", since.toString());
      details.put("unreachable", store.unreachableReason());
    }
    if (store.storeEmpty()) {
      details.put("state", "store empty");
    }
    String error = store.error();
    if (error != null) {
      details.put("error", error);
    } else if (store.garbage() != null) {
      details.put("error", store.garbage());
    }
    return details;
  }

  private static Map<String, Object> cluster(ClusterStatus cluster) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("store", cluster.description());
    long deadline = Math.max(cluster.options().timeout().toNanos(), MIN_PING.toNanos());
    long start = System.nanoTime();
    try {
      cluster.ping().get(deadline, TimeUnit.NANOSECONDS);
      details.put("reachable", true);
      details.put("pingMillis", Math.round((System.nanoTime() - start) / 1e4) / 100.0);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      details.put("reachable", false);
    } catch (TimeoutException e) {
      details.put("reachable", false);
      details.put("error", "no answer to PING within " + TimeUnit.NANOSECONDS.toMillis(deadline) + "ms");
    } catch (ExecutionException | RuntimeException e) {
      Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
      details.put("reachable", false);
      details.put("error", cause.getClass().getSimpleName() + ": " + cause.getMessage());
    }
    details.putAll(ClusterJson.state(cluster));
    return details;
  }
}
