package dev.weir.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.FlowException;
import dev.weir.annotation.RateLimited;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With {@code spring.aop.proxy-target-class=false} a bean whose class implements interfaces is
 * proxied by those interfaces (a JDK proxy), which intercepts their methods whatever the class's
 * modifiers: a final class's method declared by an interface is guarded through it, and the start
 * goes on. A final method no interface declares still stops it.
 */
class FinalBehindInterfaceTests {

  /** What the bean is used through. */
  public interface Finder {
    String find(String id);
  }

  /** Final, and so is its method: guarded through {@link Finder} by an interface proxy. */
  static final class FinalFinder implements Finder {
    @Override
    @RateLimited("final-behind-interface")
    public final String find(String id) {
      return id;
    }
  }

  /** Implements an interface, but its final guarded method is not the interface's. */
  static class FinalOwnMethod implements Finder {
    @Override
    public String find(String id) {
      return id;
    }

    @RateLimited("final-own-method")
    public final String other(String id) {
      return id;
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({AopAutoConfiguration.class, WeirAutoConfiguration.class})
  static class App {
  }

  @Configuration(proxyBeanMethods = false)
  static class FinalFinderConfig {
    @Bean
    Finder finder() {
      return new FinalFinder();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class FinalOwnMethodConfig {
    @Bean
    Finder finder() {
      return new FinalOwnMethod();
    }
  }

  private static ConfigurableApplicationContext start(Class<?> config) {
    return new SpringApplicationBuilder(App.class, config).web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off", "spring.config.name=none", "spring.aop.proxy-target-class=false",
            "weir.flow[0].resource=final-behind-interface", "weir.flow[0].count=1",
            "weir.flow[0].interval=1h")
        .run();
  }

  @Test
  void aFinalMethodDeclaredByAnInterfaceIsGuardedThroughAnInterfaceProxy() {
    try (ConfigurableApplicationContext context = start(FinalFinderConfig.class)) {
      Finder finder = context.getBean(Finder.class);
      assertThat(finder.find("a")).isEqualTo("a");
      assertThatThrownBy(() -> finder.find("b")).isInstanceOf(FlowException.class);
    }
  }

  @Test
  void aFinalMethodNoInterfaceDeclaresStopsTheStartEvenWithInterfaceProxies() {
    assertThatThrownBy(() -> start(FinalOwnMethodConfig.class).close()).hasStackTraceContaining(
        "FinalBehindInterfaceTests$FinalOwnMethod.other(String) cannot take effect: the method is final, and no"
            + " interface of the class declares the method");
  }
}
