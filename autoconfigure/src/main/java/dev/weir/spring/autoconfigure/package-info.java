/**
 * Spring Boot auto-configuration of Weir: the engine, the {@code weir.*} properties and their
 * checks, and {@link dev.weir.annotation.RateLimited} support.
 */
@NullMarked
package dev.weir.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
