package dev.weir.spring.aot;

/** Declares nothing guarded, but lies between {@link LayeredService} and its guarded superclass. */
public abstract class LayerBetween extends GuardedBase {
}
