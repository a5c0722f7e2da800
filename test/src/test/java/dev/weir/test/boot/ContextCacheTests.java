package dev.weir.test.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.test.AutoConfigureWeirTest;
import dev.weir.test.DrivenTicker;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.TestContextManager;

/**
 * The annotation is part of the test context's configuration: annotated classes share one cached
 * context, and a class without it never gets theirs (nor their {@code DrivenTicker}).
 */
class ContextCacheTests {

  @SpringBootTest
  @AutoConfigureWeirTest
  static class Annotated {
  }

  @SpringBootTest
  @AutoConfigureWeirTest
  static class AlsoAnnotated {
  }

  @SpringBootTest
  static class NotAnnotated {
  }

  private static ApplicationContext contextOf(Class<?> testClass) {
    return new TestContextManager(testClass).getTestContext().getApplicationContext();
  }

  @Test
  void annotatedClassesShareAContextThatUnannotatedOnesDoNotGet() {
    ApplicationContext annotated = contextOf(Annotated.class);
    assertThat(contextOf(AlsoAnnotated.class)).isSameAs(annotated);
    ApplicationContext plain = contextOf(NotAnnotated.class);
    assertThat(plain).isNotSameAs(annotated);
    assertThat(annotated.getBeanNamesForType(DrivenTicker.class)).hasSize(1);
    assertThat(plain.getBeanNamesForType(DrivenTicker.class)).isEmpty();
  }
}
