package dev.weir.spring.autoconfigure;

import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.spring.aop.RateLimitedAdvisor;
import dev.weir.spring.properties.Spelling;
import dev.weir.spring.properties.WeirProperties;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The resources an application uses: those it declares (its {@code @RateLimited} methods, its
 * {@code weir.web.routes} and {@code weir.client.routes}, and with grpc-java its server methods), and
 * those calls have used since start. A rule for any other resource guards nothing, most often
 * because of a typo: the start warns of such rules in {@code application.yml}, and the {@code weir}
 * endpoint answers a write of one with a warning ({@link #warning}).
 */
public final class ResourcesInUse {

  private final WeirProperties properties;
  private final ObjectProvider<Weir> weir;
  private final ObjectProvider<RateLimitedAdvisor> advisor;
  private final ObjectProvider<DeclaredResources> declared;

  ResourcesInUse(WeirProperties properties, ObjectProvider<Weir> weir, ObjectProvider<RateLimitedAdvisor> advisor,
      ObjectProvider<DeclaredResources> declared) {
    this.properties = properties;
    this.weir = weir;
    this.advisor = advisor;
    this.declared = declared;
  }

  /**
   * Resources an auto-configuration knows of before any call: gRPC server methods, for example.
   * Asked whenever {@link ResourcesInUse} is.
   */
  @FunctionalInterface
  public interface DeclaredResources {

    /** Returns the names of the resources declared. */
    Set<String> resources();
  }

  /** Returns the resources declared by the application's code and configuration, in name order. */
  public Set<String> declared() {
    Set<String> names = new TreeSet<>();
    properties.getWeb().getRoutes().forEach(route -> {
      if (route.getResource() != null) {
        names.add(route.getResource());
      }
    });
    properties.getClient().getRoutes().forEach(route -> {
      if (route.getResource() != null) {
        names.add(route.getResource());
      }
    });
    RateLimitedAdvisor rateLimited = advisor.getIfUnique();
    if (rateLimited != null) {
      names.addAll(rateLimited.resources());
    }
    declared.orderedStream().forEach(source -> names.addAll(source.resources()));
    return names;
  }

  /** Returns the resources declared and those a call (admitted or refused) has used since start, in name order. */
  public Set<String> used() {
    Set<String> used = declared();
    Weir engine = weir.getIfUnique();
    if (engine != null) {
      for (String resource : engine.resources()) {
        ResourceStatistics statistics = engine.statistics(resource);
        if (statistics != null && statistics.totalPassed() + statistics.totalBlocked() > 0) {
          used.add(resource);
        }
      }
    }
    return used;
  }

  /**
   * Returns the warning for rules written for {@code resource}, or null when it is {@link #used}:
   * {@code no call has used resource 'greting' since start (did you mean 'greeting'?)}.
   */
  public @Nullable String warning(String resource) {
    Set<String> used = used();
    if (used.contains(resource)) {
      return null;
    }
    return "no call has used resource '" + resource + "' since start" + Spelling.suggestion(resource, used);
  }
}
