package dev.weir.test.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.util.ClassUtils;

/**
 * Reactor is an optional dependency of Weir: this module's tests run without it on the classpath,
 * and a guarded application starts and is guarded.
 */
@GreetingTest
class WithoutReactorTests {

  @Autowired
  Weir weir;

  @Autowired
  GreetingApplication.Greeter greeter;

  @Test
  void weirStartsAndGuardsWithoutReactor() {
    assertThat(ClassUtils.isPresent("reactor.core.publisher.Mono", getClass().getClassLoader()))
        .as("Reactor on this module's test classpath").isFalse();
    Greetings.startsCleanAndAdmitsTheFullCount(weir, greeter);
  }
}
