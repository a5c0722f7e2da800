package dev.weir.spring.routing;

import dev.weir.BlockException;
import dev.weir.annotation.RateLimited;
import java.util.function.Supplier;

/** Real limits: a concurrency limit and a rate. */
class LimitsService implements Services.Limits {

  @Override
  @RateLimited(value = "rt.threads", blockHandler = "busy")
  public String runInside(Supplier<String> inner) {
    return inner.get();
  }

  String busy(Supplier<String> inner, BlockException e) {
    return "busy";
  }

  @Override
  @RateLimited("rt.qps")
  public String tick() {
    return "tick";
  }
}
