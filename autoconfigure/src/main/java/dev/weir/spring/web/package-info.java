/**
 * What Weir's HTTP answers share between Spring MVC and WebFlux: the status, {@code Retry-After} and
 * {@code application/problem+json} body of a refusal ({@link dev.weir.spring.web.BlockProblems}),
 * and the name of the context inbound requests run in ({@link dev.weir.spring.web.WebContext}).
 * Only Spring's HTTP types are used here, neither the Servlet API nor Reactor.
 */
@NullMarked
package dev.weir.spring.web;

import org.jspecify.annotations.NullMarked;
