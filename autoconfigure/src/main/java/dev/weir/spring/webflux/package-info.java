/**
 * Weir for Spring WebFlux: HTTP answers to refused calls, and the context and origin of inbound
 * requests, carried in each request's Reactor context (never in a thread-local).
 */
@NullMarked
package dev.weir.spring.webflux;

import org.jspecify.annotations.NullMarked;
