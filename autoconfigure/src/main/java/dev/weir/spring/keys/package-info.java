/**
 * Key expressions of hot-parameter rules in SpEL: what a call of an annotated method or a request
 * of a route is counted under.
 */
@NullMarked
package dev.weir.spring.keys;

import org.jspecify.annotations.NullMarked;
