/**
 * Weir for Spring Boot Actuator: the {@code weir} endpoint (live statistics and rules per resource,
 * and rule replacement at runtime) and the {@code weir} health contributor. Posted rules are read
 * onto the property classes of {@code dev.weir.spring.properties} and judged by its validator, as
 * at start; nothing here depends on the auto-configuration.
 */
@NullMarked
package dev.weir.spring.actuate;

import org.jspecify.annotations.NullMarked;
