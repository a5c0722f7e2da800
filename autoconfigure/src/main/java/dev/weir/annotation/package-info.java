/**
 * The annotations of Weir: {@link dev.weir.annotation.RateLimited} guards methods of Spring beans.
 */
@NullMarked
package dev.weir.annotation;

import org.jspecify.annotations.NullMarked;
