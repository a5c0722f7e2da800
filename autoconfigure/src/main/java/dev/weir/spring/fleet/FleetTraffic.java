package dev.weir.spring.fleet;

import java.util.Map;

/**
 * The traffic of the live instances of the fleet, summed per resource: the {@code resources} of
 * {@code GET /actuator/weir/fleet}. An application context has at most one; without it the fleet
 * view shows no traffic.
 */
public interface FleetTraffic {

  /**
   * Returns the traffic summed over the live instances, per resource, with the field names of
   * {@code GET /actuator/weir}'s resources ({@code passQps}, {@code blockQps}, {@code successQps},
   * {@code exceptionQps}, {@code activeCalls}).
   */
  Map<String, Map<String, Object>> summed();
}
