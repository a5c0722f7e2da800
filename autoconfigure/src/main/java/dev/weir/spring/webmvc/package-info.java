/**
 * Weir for Spring MVC: HTTP answers to refused calls, and the context and origin of inbound
 * requests.
 */
@NullMarked
package dev.weir.spring.webmvc;

import org.jspecify.annotations.NullMarked;
