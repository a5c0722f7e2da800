/**
 * What reactive code shares with Weir: the {@link dev.weir.spring.reactive.ReactiveContext} a chain
 * carries in Reactor's context (a record that needs no Reactor to load), and
 * {@link dev.weir.spring.reactive.ReactiveEntries}, which takes a call's entry as that context says
 * (loaded only where Reactor is).
 */
@NullMarked
package dev.weir.spring.reactive;

import org.jspecify.annotations.NullMarked;
