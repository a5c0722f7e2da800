/**
 * Test support for applications that use Weir; add {@code dev.weir:weir-test} with test scope.
 *
 * <p>{@link dev.weir.test.DrivenTicker} is a time source and sleeper the test drives, for an engine
 * built by hand ({@code Weir.builder().ticker(t).sleeper(t)}); it needs nothing but
 * {@code weir-core}. {@link dev.weir.test.AutoConfigureWeirTest} does the same for the engine of a
 * Spring Boot test and resets that engine before each test method.
 */
@NullMarked
package dev.weir.test;

import org.jspecify.annotations.NullMarked;
