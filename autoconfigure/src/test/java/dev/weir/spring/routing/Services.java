package dev.weir.spring.routing;

import dev.weir.annotation.RateLimited;
import java.io.IOException;
import java.util.function.Supplier;

/** The interfaces of the routing test beans: with JDK proxies, beans are used through them. */
final class Services {

  private Services() {
  }

  interface BlockHandlers {
    String privateHandler(String id);

    String typed(String kind);

    String overloaded(String kind);

    String staticHandlers(String id);

    String unhandled();
  }

  interface Fallbacks {
    String plain(String id);

    String withCause(String mode) throws IOException;

    String traced(String mode) throws IOException;

    String checkedWithoutHandler(String mode) throws IOException;

    int primitive(int value);
  }

  interface TypeLevel {
    String covered(String mode);

    String own(String mode);

    String covered2();
  }

  interface Limits {
    String runInside(Supplier<String> inner);

    String tick();
  }

  interface Inherited {
    String inherited();
  }

  /** Carries a method-level annotation that the implementation does not repeat. */
  interface AnnotatedContract {
    @RateLimited(value = "rt.contract", blockHandler = "contractBlocked")
    String contract(String id);
  }
}
