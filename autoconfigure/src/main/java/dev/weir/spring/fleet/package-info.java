/**
 * The fleet ({@code weir.rules-store}): each instance's traffic published to Redis and summed over
 * the live instances ({@link dev.weir.spring.fleet.FleetTrafficRedis},
 * {@link dev.weir.spring.fleet.FleetTrafficPublisher}).
 */
@NullMarked
package dev.weir.spring.fleet;

import org.jspecify.annotations.NullMarked;
