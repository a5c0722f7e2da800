/**
 * Refusals in traces: {@link dev.weir.spring.observation.RefusalObserver}, which the HTTP routes, the
 * {@code @RateLimited} advice and the outgoing-call guard tell of each refusal they meet, and its
 * Micrometer implementation ({@link dev.weir.spring.observation.ObservationRefusalObserver}), which
 * records it on the current observation. The interface names no Micrometer type, so that its users
 * load without Micrometer.
 */
@NullMarked
package dev.weir.spring.observation;

import org.jspecify.annotations.NullMarked;
