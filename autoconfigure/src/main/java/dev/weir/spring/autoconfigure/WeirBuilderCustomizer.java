package dev.weir.spring.autoconfigure;

import dev.weir.Weir;

/**
 * Customizes the {@link Weir.Builder} of the auto-configured engine before it is built, after the
 * {@code weir.*} properties and any {@code Ticker} or {@code Sleeper} bean were applied. Declare
 * beans of this type to add slots or change limits without replacing the engine (a {@link Weir}
 * bean of your own replaces it, and the {@code weir.flow} rules are then not loaded into it).
 */
@FunctionalInterface
public interface WeirBuilderCustomizer {

  /** Customizes {@code builder}. */
  void customize(Weir.Builder builder);
}
