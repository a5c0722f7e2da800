package dev.weir.spring.actuate;

import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;

/**
 * Lets the write operation of the {@code weir} endpoint see the arguments it does not take, so that
 * it can refuse them.
 *
 * <p>Spring Boot hands an operation only the arguments named like its parameters and drops the
 * others without a word: {@code {"flow": [...], "degarde": [...]}} would replace the flow rules and
 * silently keep the circuit breakers. This advisor wraps the write operations of the endpoint (its
 * own and those of its extensions, over any technology) and, for the duration of one invocation,
 * tells {@link WeirEndpoint} the names of the arguments no parameter takes; the endpoint then
 * refuses the whole request, naming each of them, and changes nothing. Over HTTP these are the
 * keys at the top of the body and the query parameters.
 */
public final class WeirEndpointArgumentsAdvisor implements OperationInvokerAdvisor {

  private static final EndpointId WEIR = EndpointId.of("weir");
  private static final ThreadLocal<List<String>> UNKNOWN = new ThreadLocal<>();

  @Override
  public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
      OperationInvoker invoker) {
    if (!WEIR.equals(endpointId) || operationType != OperationType.WRITE) {
      return invoker;
    }
    Set<String> taken = parameters.stream().map(OperationParameter::getName).collect(Collectors.toSet());
    return context -> {
      List<String> unknown = context.getArguments().keySet().stream().filter(name -> !taken.contains(name))
          .sorted().toList();
      if (unknown.isEmpty()) {
        return invoker.invoke(context);
      }
      return during(unknown, () -> invoker.invoke(context));
    };
  }

  private static @Nullable Object during(List<String> unknown, Supplier<@Nullable Object> invocation) {
    List<String> outer = UNKNOWN.get();
    UNKNOWN.set(unknown);
    try {
      return invocation.get();
    } finally {
      if (outer == null) {
        UNKNOWN.remove();
      } else {
        UNKNOWN.set(outer);
      }
    }
  }

  /** Returns the arguments of the write operation running on this thread that it does not take. */
  static List<String> unknownArguments() {
    List<String> unknown = UNKNOWN.get();
    return unknown != null ? unknown : List.of();
  }
}
