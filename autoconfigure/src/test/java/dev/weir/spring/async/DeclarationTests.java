package dev.weir.spring.async;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.annotation.RateLimited;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
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
