package dev.weir.spring.actuate;

import dev.weir.ClusterStatus;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The state of an engine's cluster connection as JSON, for the health contributor and the endpoint:
 * the breaker of the store, the fallback, the instances announced, the decisions by outcome (totals
 * since start), those in flight and the last failure. Nothing here talks to the store.
 */
final class ClusterJson {

  private ClusterJson() {
  }

  static Map<String, Object> state(ClusterStatus cluster) {
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("breaker", RulesJson.circuitState(cluster.breakerState()));
    details.put("fallback", cluster.options().fallback().name().toLowerCase(Locale.ROOT));
    if (cluster.liveInstances() > 0) {
      details.put("liveInstances", cluster.liveInstances()); // announced: the share fallback's divisor
    }
    Map<String, Long> decisions = new LinkedHashMap<>();
    decisions.put("admitted", cluster.admitted());
    decisions.put("blocked", cluster.blocked());
    decisions.put("fallback", cluster.fallbacks());
    details.put("decisions", decisions);
    details.put("inFlight", cluster.inFlight());
    String lastFailure = cluster.lastFailure();
    if (lastFailure != null) {
      details.put("lastFailure", lastFailure);
      java.time.Instant at = cluster.lastFailureTime();
      if (at != null) {
        details.put("lastFailureAt", at.toString()); // ISO-8601, UTC
      }
    }
    return details;
  }
}
