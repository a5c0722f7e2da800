package dev.weir.spring.async;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.annotation.RateLimited;
import dev.weir.spring.aop.RateLimitedDeclarationException;
import dev.weir.spring.aop.ReturnKindAccess;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.core.NestedExceptionUtils;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

/**
 * What start-up says about asynchronous methods it cannot guard, or whose handlers do not fit;
 * and that {@code permits} is checked.
 */
class DeclarationTests {

  private final ApplicationContextRunner contexts = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class));

  @Test
  void aSuspendBlockHandlerOfTheWrongSignatureStopsTheStartNamingWhatWouldMatch() {
    contexts.withBean(SuspendingService.class).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("suspend dev.weir.spring.async.SuspendingService.call(String)")
          .hasMessageContaining("suspend String blocked(int, BlockException): takes (int, BlockException)")
          .hasMessageContaining("[suspend] String blocked(String, BlockException)")
          .hasMessageContaining("its continuation not counted");
    });
  }

  @Test
  void aPrivateKotlinFunctionStopsTheStart() {
    contexts.withBean(PrivateSuspendingService.class).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("PrivateSuspendingService.hidden()")
          .hasMessageContaining("the function is private");
    });
  }

  @Test
  void aFlowFunctionWithASettleExpressionStopsTheStart() {
    contexts.withBean(SettledFlowService.class).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("SettledFlowService.numbers()")
          .hasMessageContaining("returns a Kotlin Flow, which has no result to read a cost from");
      assertThat(((RateLimitedDeclarationException) NestedExceptionUtils.getRootCause(context.getStartupFailure()))
          .action()).contains("guard(settle = ...)");
    });
  }

  @Test
  void anInlineKotlinFunctionStopsTheStartNamingWhy() {
    contexts.withBean(InlineService.class).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("InlineService.twice(int)")
          .hasMessageContaining("an inline function never is, its body is copied into its callers");
    });
  }

  @Test
  void aKotlinFunctionThatIsNotOpenStopsTheStartNamingWhy() {
    contexts.withBean(ClosedFunctionService.class).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("ClosedFunctionService.call()")
          .hasMessageContaining("Kotlin classes and functions are final unless declared open");
    });
  }

  @Test
  void aFunctionOfACompanionObjectStopsTheStartNamingWhy() {
    contexts.withBean(CompanionService.class).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("CompanionService$Companion.helper()")
          .hasMessageContaining("a function of the companion object of dev.weir.spring.async.CompanionService");
    });
  }

  @Test
  void aSuspendFunctionNeedsKotlinReflectAndSaysSo() throws Exception {
    java.lang.reflect.Method call = null;
    for (java.lang.reflect.Method candidate : SuspendingService.class.getDeclaredMethods()) {
      if (candidate.getName().equals("call")) {
        call = candidate;
      }
    }
    assertThat(call).isNotNull();
    // with every library present it can be guarded; without kotlin-reflect, the start names it
    assertThat(ReturnKindAccess.unsupported(call, getClass().getClassLoader())).isNull();
    assertThat(ReturnKindAccess.unsupported(call, new FilteredClassLoader("kotlin.reflect.full")))
        .contains("org.jetbrains.kotlin:kotlin-reflect");
    assertThat(ReturnKindAccess.unsupported(call, new FilteredClassLoader("kotlinx.coroutines.reactor")))
        .contains("org.jetbrains.kotlinx:kotlinx-coroutines-reactor");
  }

  static class MonoWithMismatchedFallback {
    @RateLimited(value = "m", fallback = "fallback")
    public Mono<String> call() {
      return Mono.just("x");
    }

    Integer fallback(Throwable failure) {
      return 1;
    }
  }

  @Test
  void aFallbackOfAMonoMustReturnTheMonoOrItsElementType() {
    contexts.withBean(MonoWithMismatchedFallback.class).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("returns Integer, which is neither assignable to Mono nor to its element type String");
    });
  }

  static class StageWithElementHandlers {
    @RateLimited(value = "s", blockHandler = "busy", fallback = "fallback")
    public CompletableFuture<String> call() {
      return CompletableFuture.completedFuture("x");
    }

    String busy(BlockException refusal) {
      return "busy";
    }

    CompletableFuture<String> fallback(Throwable failure) {
      return CompletableFuture.completedFuture("fallback");
    }
  }

  @Test
  void handlersOfAStageMayReturnTheElementTypeOrTheStage() {
    contexts.withBean(StageWithElementHandlers.class).run(context -> assertThat(context).hasNotFailed());
  }

  static class ZeroPermits {
    @RateLimited(value = "z", permits = 0)
    public String call() {
      return "x";
    }
  }

  @Test
  void permitsBelowOneStopTheStart() {
    contexts.withBean(ZeroPermits.class).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("sets permits = 0");
    });
  }
}
