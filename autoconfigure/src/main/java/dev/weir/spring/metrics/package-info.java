/**
 * Micrometer meters of Weir: function counters, gauges and timers that read the engine's own
 * counters, so that nothing is counted twice on a guarded call.
 */
@NullMarked
package dev.weir.spring.metrics;

import org.jspecify.annotations.NullMarked;
