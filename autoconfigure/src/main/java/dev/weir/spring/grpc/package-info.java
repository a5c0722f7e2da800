/**
 * gRPC (grpc-java): a server interceptor that guards each method of a server as an {@code IN}
 * resource {@code grpc:<service>/<method>}, and a client interceptor that guards each method called
 * on a channel as an {@code OUT} resource {@code grpc-client:<service>/<method>}; unary and streaming
 * calls alike, each guarded until it completes, is cancelled or fails.
 */
@NullMarked
package dev.weir.spring.grpc;

import org.jspecify.annotations.NullMarked;
