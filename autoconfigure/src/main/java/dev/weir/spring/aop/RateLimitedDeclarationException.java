package dev.weir.spring.aop;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/**
 * Thrown when the application starts and a {@code @RateLimited} declaration cannot be honoured:
 * a handler it names is missing or has the wrong signature, or an attribute is invalid. The
 * message names the class, the method and the signatures that would have matched; a
 * {@link org.springframework.boot.diagnostics.FailureAnalyzer} turns it into the start failure
 * report.
 */
public final class RateLimitedDeclarationException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  private final transient Class<?> beanClass;
  private final transient @Nullable Method method;
  private final String action;

  RateLimitedDeclarationException(Class<?> beanClass, @Nullable Method method, String description, String action) {
    super(description);
    this.beanClass = beanClass;
    this.method = method;
    this.action = action;
  }

  /** Returns the class of the bean whose declaration is wrong. */
  public Class<?> beanClass() {
    return beanClass;
  }

  /** Returns the guarded method whose declaration is wrong, or null when it is the type's. */
  public @Nullable Method method() {
    return method;
  }

  /** Returns what to do about it. */
  public String action() {
    return action;
  }
}
