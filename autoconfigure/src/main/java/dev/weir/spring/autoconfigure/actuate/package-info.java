/**
 * Spring Boot auto-configuration of Weir's actuator endpoint and health contributor.
 */
@NullMarked
package dev.weir.spring.autoconfigure.actuate;

import org.jspecify.annotations.NullMarked;
