package dev.weir.spring.aot;

import dev.weir.annotation.RateLimited;

/** Names a blockHandler it does not have. */
public class BrokenService {

  @RateLimited(blockHandler = "missing")
  public String call() {
    return "called";
  }
}
