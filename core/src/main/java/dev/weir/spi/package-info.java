/**
 * Extension points of the engine. A {@link dev.weir.spi.ProcessorSlot} registered through
 * {@link java.util.ServiceLoader} (or {@code Weir.builder().slot(...)}) joins every engine's slot
 * chain at the position its {@link dev.weir.spi.ProcessorSlot#order()} gives.
 */
@NullMarked
package dev.weir.spi;

import org.jspecify.annotations.NullMarked;
