/**
 * The fleet ({@code weir.rules-store}): the fleet's rules in one place, the versioned document in
 * Redis ({@link dev.weir.spring.fleet.RulesStore}), and each instance's following of it
 * ({@link dev.weir.spring.fleet.FleetSync}); each instance's traffic published to Redis and summed
 * over the live instances ({@link dev.weir.spring.fleet.FleetTrafficRedis},
 * {@link dev.weir.spring.fleet.FleetTrafficPublisher}).
 */
@NullMarked
package dev.weir.spring.fleet;

import org.jspecify.annotations.NullMarked;
