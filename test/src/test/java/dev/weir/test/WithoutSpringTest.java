package dev.weir.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;

/**
 * {@link DrivenTicker} needs nothing but weir-core: the scenario below runs in a class loader that
 * has this module's classes and weir-core, and no Spring at all.
 */
class WithoutSpringTest {

  /** Loaded by the Spring-free class loader; only its {@code Callable} face is seen from outside. */
  public static final class Scenario implements Callable<String> {
    @Override
    public String call() {
      // tag::without-spring[]
      DrivenTicker ticker = new DrivenTicker();
      Weir weir = Weir.builder().ticker(ticker).sleeper(ticker)
          .rules(RuleSet.of(FlowRule.qps("createOrder", 1))).build();
      // end::without-spring[]
      try (weir) {
        weir.entry("createOrder").close();
        String refused;
        try {
          weir.entry("createOrder").close();
          refused = "admitted";
        } catch (FlowException e) {
          refused = "refused";
        }
        ticker.advance(Duration.ofSeconds(1));
        weir.entry("createOrder").close();
        return refused + ", then admitted; " + DrivenTicker.class.getClassLoader().getClass().getSimpleName();
      }
    }
  }

  @Test
  void drivesAnEngineWithNoSpringOnTheClassPath() throws Exception {
    List<URL> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.contains("springframework") && !entry.contains("junit") && !entry.contains("assertj")) {
        urls.add(new File(entry).toURI().toURL());
      }
    }
    try (URLClassLoader noSpring = new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
      assertThatThrownBy(() -> Class.forName("org.springframework.context.ApplicationContext", false, noSpring))
          .isInstanceOf(ClassNotFoundException.class);
      Class<?> scenario = Class.forName(Scenario.class.getName(), true, noSpring);
      assertThat(scenario).isNotSameAs(Scenario.class);
      @SuppressWarnings("unchecked")
      Callable<String> run = (Callable<String>) scenario.getConstructor().newInstance();
      assertThat(run.call()).isEqualTo("refused, then admitted; URLClassLoader");
    }
  }
}
