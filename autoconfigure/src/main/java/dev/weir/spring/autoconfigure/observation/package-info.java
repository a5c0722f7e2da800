/**
 * Auto-configuration of refusals in traces: with Micrometer's {@code ObservationRegistry}, a
 * {@code RefusalObserver} that records each refusal on the current observation.
 */
@NullMarked
package dev.weir.spring.autoconfigure.observation;

import org.jspecify.annotations.NullMarked;
