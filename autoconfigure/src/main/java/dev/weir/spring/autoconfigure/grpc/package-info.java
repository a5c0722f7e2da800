/**
 * Spring Boot auto-configuration of Weir's gRPC interceptors.
 */
@NullMarked
package dev.weir.spring.autoconfigure.grpc;

import org.jspecify.annotations.NullMarked;
