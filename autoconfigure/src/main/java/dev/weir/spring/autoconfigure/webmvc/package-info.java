/**
 * Spring Boot auto-configuration of Weir for Spring MVC applications.
 */
@NullMarked
package dev.weir.spring.autoconfigure.webmvc;

import org.jspecify.annotations.NullMarked;
