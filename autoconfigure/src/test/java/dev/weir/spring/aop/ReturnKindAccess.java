package dev.weir.spring.aop;

import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;

/** Lets tests of other packages ask {@link ReturnKind} why a method cannot be guarded with the libraries a loader finds. */
public final class ReturnKindAccess {

  private ReturnKindAccess() {
  }

  public static @Nullable String unsupported(Method method, ClassLoader loader) {
    return ReturnKind.unsupported(method, loader);
  }
}
