/**
 * Outgoing HTTP calls guarded as resources: the routes of {@code weir.client.routes}
 * ({@link dev.weir.spring.client.ClientRoute}), the guard they share
 * ({@link dev.weir.spring.client.ClientGuard}), its interceptor for {@code RestClient} and
 * {@code RestTemplate} ({@link dev.weir.spring.client.WeirClientHttpRequestInterceptor}) and its filter
 * for {@code WebClient} ({@link dev.weir.spring.client.WeirExchangeFilterFunction}), and what a server's
 * answer may ask of later calls ({@link dev.weir.spring.client.UpstreamHeaders},
 * {@link dev.weir.spring.client.UpstreamPauses}). Only Spring's HTTP types are used here, and Reactor
 * by the {@code WebClient} filter alone.
 */
@NullMarked
package dev.weir.spring.client;

import org.jspecify.annotations.NullMarked;
