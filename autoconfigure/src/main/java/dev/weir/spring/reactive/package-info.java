/**
 * What reactive code shares with Weir without depending on Reactor at class-loading time: the
 * {@link dev.weir.spring.reactive.ReactiveContext} a chain carries in Reactor's context.
 */
@NullMarked
package dev.weir.spring.reactive;

import org.jspecify.annotations.NullMarked;
