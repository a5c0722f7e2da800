/**
 * The fleet's rules in one place ({@code weir.rules-store}): the versioned document in Redis
 * ({@link dev.weir.spring.fleet.RulesStore}), and each instance's following of it
 * ({@link dev.weir.spring.fleet.FleetSync}).
 */
@NullMarked
package dev.weir.spring.fleet;

import org.jspecify.annotations.NullMarked;
