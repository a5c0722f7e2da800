/**
 * Weir for Spring Boot Actuator: the {@code weir} endpoint (live statistics and rules per resource,
 * and rule replacement at runtime) and the {@code weir} health contributor.
 */
@NullMarked
package dev.weir.spring.actuate;

import org.jspecify.annotations.NullMarked;
