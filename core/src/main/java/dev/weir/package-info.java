/**
 * The Weir flow-control engine.
 *
 * <p>{@link dev.weir.Weir} is an engine instance with its own time source, rules and statistics;
 * {@link dev.weir.Weir#entry(String)} guards a call and either returns an {@link dev.weir.Entry}
 * or throws a {@link dev.weir.BlockException}. Nothing in this package keeps global mutable state:
 * two engines in one JVM never see each other.
 */
@NullMarked
package dev.weir;

import org.jspecify.annotations.NullMarked;
