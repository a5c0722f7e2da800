/**
 * Cluster mode: flow rules (and keys of param-flow rules) whose count is shared by every instance
 * of an application.
 *
 * <p>The engine does not talk to any store itself. A {@link dev.weir.cluster.ClusterClient} (the
 * Spring starter ships one on Redis) turns a {@link dev.weir.cluster.ClusterLimit} into a
 * {@link dev.weir.cluster.ClusterCounter}; the engine asks it for one
 * {@link dev.weir.cluster.ClusterDecision} per call and applies
 * {@link dev.weir.cluster.ClusterOptions}: a deadline per decision, a bound on decisions in flight,
 * a breaker that stops asking after repeated failures, and a {@link dev.weir.cluster.ClusterFallback}
 * whenever the store cannot answer in time.
 */
@NullMarked
package dev.weir.cluster;

import org.jspecify.annotations.NullMarked;
