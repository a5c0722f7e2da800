package dev.weir.test;

import dev.weir.Weir;
import org.springframework.core.Ordered;
import org.springframework.test.context.TestContext;
import org.springframework.test.context.TestContextAnnotationUtils;
import org.springframework.test.context.support.AbstractTestExecutionListener;

/**
 * Resets every {@link Weir} bean before each test method of a class that carries
 * {@link AutoConfigureWeirTest} (directly, through an annotation of its own, a superclass, or an
 * enclosing class of a {@code @Nested} test). Registered in {@code META-INF/spring.factories}, so it
 * is seen by every Spring test, and does nothing for the others.
 */
final class WeirResetTestExecutionListener extends AbstractTestExecutionListener {

  /** After dependency injection, among the last (next to Spring Boot's mock reset). */
  @Override
  public int getOrder() {
    return Ordered.LOWEST_PRECEDENCE - 100;
  }

  @Override
  public void beforeTestMethod(TestContext testContext) {
    if (TestContextAnnotationUtils.hasAnnotation(testContext.getTestClass(), AutoConfigureWeirTest.class)) {
      testContext.getApplicationContext().getBeanProvider(Weir.class).orderedStream().forEach(Weir::reset);
    }
  }
}
