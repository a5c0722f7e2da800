/**
 * Spring Boot auto-configuration of Weir's cluster mode on Redis.
 */
@NullMarked
package dev.weir.spring.autoconfigure.redis;

import org.jspecify.annotations.NullMarked;
