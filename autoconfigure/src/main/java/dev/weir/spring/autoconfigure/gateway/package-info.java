/**
 * Spring Boot auto-configuration of Weir for Spring Cloud Gateway (server WebFlux and server MVC).
 */
@NullMarked
package dev.weir.spring.autoconfigure.gateway;

import org.jspecify.annotations.NullMarked;
