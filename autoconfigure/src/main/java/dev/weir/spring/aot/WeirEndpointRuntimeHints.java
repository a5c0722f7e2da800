package dev.weir.spring.aot;

import dev.weir.spring.actuate.WeirEndpoint;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.util.ClassUtils;

/**
 * Jackson binding hints for the answer of the {@code weir} endpoint that its operations do not
 * declare: a refused {@code POST /actuator/weir/{resource}} answers {@code 400} with an
 * {@link WeirEndpoint.InvalidRulesDescriptor} (and its {@code RuleViolation}s) inside a
 * {@code WebEndpointResponse<OperationResponseBody>}, a type from which the actuator's own hints
 * cannot tell the body. The operations and their declared answers are left to the actuator. Nothing
 * is registered without Spring Boot's actuator. Registered in {@code META-INF/spring/aot.factories}.
 */
final class WeirEndpointRuntimeHints implements RuntimeHintsRegistrar {

  static final String ACTUATOR = "org.springframework.boot.actuate.endpoint.OperationResponseBody";

  @Override
  public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
    if (ClassUtils.isPresent(ACTUATOR, classLoader)) {
      new BindingReflectionHintsRegistrar().registerReflectionHints(hints.reflection(),
          WeirEndpoint.InvalidRulesDescriptor.class);
    }
  }
}
