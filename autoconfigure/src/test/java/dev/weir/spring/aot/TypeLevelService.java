package dev.weir.spring.aot;

import dev.weir.annotation.RateLimited;

/** {@code @RateLimited} on the type: every public method is guarded, with the type's defaultFallback. */
@RateLimited(defaultFallback = "down")
public class TypeLevelService extends GuardedBase {

  public String first() {
    return "first";
  }

  public String second(int value) {
    return "second " + value;
  }

  protected String notPublic() {
    return "not guarded";
  }

  private String down(Throwable failure) {
    return "down";
  }
}
