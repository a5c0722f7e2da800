package dev.weir.spring.routing;

import dev.weir.annotation.RateLimited;
import java.io.FileNotFoundException;
import java.io.IOException;

/** fallback cases. */
class FallbacksService implements Services.Fallbacks {

  @Override
  @RateLimited(value = "rt.plain", fallback = "plainFallback")
  public String plain(String id) {
    if (id.equals("fail")) {
      throw new IllegalArgumentException("bad id");
    }
    return "ok:" + id;
  }

  String plainFallback(String id) {
    return "plain-fallback:" + id;
  }

  @Override
  @RateLimited(value = "rt.cause", fallback = "withCauseFallback")
  public String withCause(String mode) throws IOException {
    if (mode.equals("io")) {
      throw new IOException("disk");
    }
    if (mode.equals("state")) {
      throw new IllegalStateException("state");
    }
    return "ok";
  }

  String withCauseFallback(String mode, IOException e) {
    return "io-fallback:" + e.getMessage();
  }

  @Override
  @RateLimited(value = "rt.traced", fallback = "tracedFallback", exceptionsToTrace = IOException.class,
      exceptionsToIgnore = FileNotFoundException.class)
  public String traced(String mode) throws IOException {
    switch (mode) {
      case "io" -> throw new IOException("io");
      case "missing" -> throw new FileNotFoundException("missing");
      case "state" -> throw new IllegalStateException("state");
      default -> {
        return "ok";
      }
    }
  }

  String tracedFallback(String mode, Throwable t) {
    return "traced-fallback:" + t.getMessage();
  }

  @Override
  @RateLimited("rt.checked")
  public String checkedWithoutHandler(String mode) throws IOException {
    throw new IOException("checked:" + mode);
  }

  @Override
  @RateLimited(value = "rt.primitive", blockHandler = "primitiveBlocked")
  public int primitive(int value) {
    return value * 2;
  }

  static Integer primitiveBlocked(int value, dev.weir.BlockException e) {
    return -value;
  }
}
