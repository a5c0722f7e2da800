/**
 * Spring AI: token limits on {@code ChatClient} calls ({@code weir.ai}).
 */
@NullMarked
package dev.weir.spring.ai;

import org.jspecify.annotations.NullMarked;
