/**
 * {@link dev.weir.annotation.RateLimited} for Spring beans: a Spring AOP advisor, handler
 * resolution at startup and the per-call routing.
 */
@NullMarked
package dev.weir.spring.aop;

import org.jspecify.annotations.NullMarked;
