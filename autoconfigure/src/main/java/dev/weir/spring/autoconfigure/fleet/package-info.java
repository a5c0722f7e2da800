/** Auto-configuration of the rules store ({@code weir.rules-store}). */
@NullMarked
package dev.weir.spring.autoconfigure.fleet;

import org.jspecify.annotations.NullMarked;
