/**
 * Spring Boot auto-configuration of Weir for Spring WebFlux applications.
 */
@NullMarked
package dev.weir.spring.autoconfigure.webflux;

import org.jspecify.annotations.NullMarked;
