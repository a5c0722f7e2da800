package dev.weir.spring.autoconfigure;

import dev.weir.KeyExpressions;
import dev.weir.Sleeper;
import dev.weir.Ticker;
import dev.weir.Weir;
import dev.weir.cluster.ClusterClient;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.properties.WeirPropertiesValidator;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Builds the auto-configured engine from {@code weir.*}; {@code RuleSources} loads its rules. Values out of range are
 * left at the engine's defaults when building; {@link WeirPropertiesValidator} reports them, and
 * the engine is closed unused.
 */
final class WeirEngines {

  private WeirEngines() {
  }

  /** Returns an engine with the settings of {@code properties}, the given beans, and no rules of its own yet. */
  static Weir build(WeirProperties properties, @Nullable ClusterClient clusterClient, KeyExpressions keyExpressions,
      ObjectProvider<Ticker> ticker, ObjectProvider<Sleeper> sleeper, ObjectProvider<WeirBuilderCustomizer> customizers) {
    Weir.Builder builder = Weir.builder().keyExpressions(keyExpressions);
    ifValid(builder, b -> b.maxResources(properties.getMaxResources()));
    java.time.Duration resolution = properties.getClockResolution();
    if (resolution != null) { // unset: the engine's default, which depends on whether a ticker is given below
      ifValid(builder, b -> b.clockResolution(resolution));
    }
    ifValid(builder, b -> b.sampleCount(properties.getStatistics().getSampleCount()));
    if (clusterClient != null) {
      ifValid(builder, b -> b.cluster(clusterClient, properties.getCluster().toOptions()));
    }
    ticker.ifAvailable(builder::ticker);
    sleeper.ifAvailable(builder::sleeper);
    customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
    return builder.build();
  }

  private static void ifValid(Weir.Builder builder, Consumer<Weir.Builder> setting) {
    try {
      setting.accept(builder);
    } catch (IllegalArgumentException | NullPointerException invalid) {
      // Reported with its property path by WeirPropertiesValidator.
    }
  }
}
