/**
 * Auto-configuration of outgoing calls ({@code weir.client}): the guard of the routes, and its
 * interceptor and filter registered through Spring Boot's {@code RestClientCustomizer},
 * {@code RestTemplateCustomizer} and {@code WebClientCustomizer}.
 */
@NullMarked
package dev.weir.spring.autoconfigure.client;

import org.jspecify.annotations.NullMarked;
