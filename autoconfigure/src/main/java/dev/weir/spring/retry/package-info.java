/**
 * Retry budgets for Spring Framework's {@code @Retryable} methods and {@code RetryTemplate}s: the
 * retries of each resource are bounded to a ratio of its first attempts over a sliding window, plus
 * a floor, so that a failing dependency sees little more than its normal load; and a Weir refusal
 * ({@link dev.weir.BlockException}) is never retried.
 */
@NullMarked
package dev.weir.spring.retry;

import org.jspecify.annotations.NullMarked;
