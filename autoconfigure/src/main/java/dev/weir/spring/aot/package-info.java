/**
 * Ahead-of-time support: the runtime hints a GraalVM native image needs for what Weir reaches
 * reflectively. The hints for {@code @RateLimited} beans come from
 * {@code dev.weir.spring.aop.RateLimitedAotProcessor}, which shares the handler resolution of the
 * running application.
 */
@NullMarked
package dev.weir.spring.aot;

import org.jspecify.annotations.NullMarked;
