package dev.weir.spring.actuate;

import dev.weir.CircuitState;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code weir} health contributor. It is always {@code UP}: a circuit breaker that opened is
 * Weir doing its job, not the application failing, so Weir never turns the application's health
 * {@code DOWN} by itself. Its details name the resources whose circuit is not closed,
 * {@code "circuits": {"payment": "open", "search": "half_open"}}, and the state of the cluster
 * connection, {@code "cluster": "disabled"} in this version.
 */
public final class WeirHealthIndicator implements HealthIndicator {

  private final Weir weir;

  /**
   * Creates the contributor.
   *
   * @param weir the engine whose circuits are reported
   */
  public WeirHealthIndicator(Weir weir) {
    this.weir = weir;
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
    return Health.up().withDetail("circuits", circuits).withDetail("cluster", "disabled").build();
  }
}
