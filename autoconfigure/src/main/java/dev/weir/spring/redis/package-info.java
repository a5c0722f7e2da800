/**
 * Cluster mode on Redis: the {@link dev.weir.cluster.ClusterClient} that counts cluster-mode flow
 * rules in Redis through the application's Lettuce connection.
 */
@NullMarked
package dev.weir.spring.redis;

import org.jspecify.annotations.NullMarked;
