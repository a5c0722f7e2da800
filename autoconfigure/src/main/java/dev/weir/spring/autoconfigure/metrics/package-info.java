/**
 * Spring Boot auto-configuration of Weir's Micrometer meters.
 */
@NullMarked
package dev.weir.spring.autoconfigure.metrics;

import org.jspecify.annotations.NullMarked;
