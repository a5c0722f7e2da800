/**
 * Auto-configuration of Spring AI token limits.
 */
@NullMarked
package dev.weir.spring.autoconfigure.ai;

import org.jspecify.annotations.NullMarked;
