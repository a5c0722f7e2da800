/**
 * Key expressions of hot-parameter rules, in a small language of Weir's own
 * ({@link dev.weir.spring.keys.KeyLanguage}): what a call of an annotated method or a request of a
 * route is counted under, read from its arguments and nothing else.
 */
@NullMarked
package dev.weir.spring.keys;

import org.jspecify.annotations.NullMarked;
