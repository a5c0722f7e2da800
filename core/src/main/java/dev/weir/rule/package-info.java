/**
 * Rules: immutable values that say what the engine admits. Each kind has a validator that returns
 * every problem with the field it concerns, so that configuration layers can point users at the
 * exact property.
 */
@NullMarked
package dev.weir.rule;

import org.jspecify.annotations.NullMarked;
