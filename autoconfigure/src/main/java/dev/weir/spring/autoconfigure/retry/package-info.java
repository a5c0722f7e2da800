/**
 * Spring Boot auto-configuration of retry budgets for Spring Framework's {@code @Retryable} and
 * {@code RetryTemplate}.
 */
@NullMarked
package dev.weir.spring.autoconfigure.retry;

import org.jspecify.annotations.NullMarked;
