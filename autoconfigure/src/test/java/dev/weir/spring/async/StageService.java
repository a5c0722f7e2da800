package dev.weir.spring.async;

import dev.weir.BlockException;
import dev.weir.annotation.RateLimited;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/** Methods returning stages; each returns the stage its argument supplies, so a test completes it. */
class StageService {

  @RateLimited("stage.threads")
  public CompletableFuture<String> held(Supplier<CompletableFuture<String>> work) {
    return work.get();
  }

  @RateLimited("stage.refused")
  public CompletableFuture<String> refused() {
    throw new AssertionError("a refused call does not run");
  }

  @RateLimited(value = "stage.handled", blockHandler = "busy", fallback = "fallback",
      exceptionsToIgnore = IllegalArgumentException.class)
  public CompletionStage<String> handled(Supplier<CompletionStage<String>> work) {
    return work.get();
  }

  CompletionStage<String> busy(Supplier<CompletionStage<String>> work, BlockException refusal) {
    return CompletableFuture.supplyAsync(() -> "busy:" + refusal.ruleKind());
  }

  String fallback(Supplier<CompletionStage<String>> work, IllegalStateException failure) {
    return "fallback:" + failure.getMessage();
  }

  @RateLimited(value = "stage.throws", fallback = "fallbackOfThrows")
  public CompletableFuture<String> throwsBeforeReturning(String mode) {
    throw new IllegalStateException(mode);
  }

  String fallbackOfThrows(String mode, Throwable failure) {
    return "fallback:" + failure.getMessage();
  }
}
