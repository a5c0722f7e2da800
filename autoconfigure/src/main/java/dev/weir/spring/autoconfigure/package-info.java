/**
 * Spring Boot auto-configuration of Weir: the engine built from the {@code weir.*} properties
 * (modelled and judged in {@code dev.weir.spring.properties}), the start checks and failure report,
 * and {@link dev.weir.annotation.RateLimited} support. The only package that uses the other
 * packages of {@code dev.weir.spring}; none of them uses it.
 */
@NullMarked
package dev.weir.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
