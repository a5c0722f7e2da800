package dev.weir.spring.grpc;

import io.grpc.MethodDescriptor;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The resource names of gRPC methods, a prefix and the method's full name
 * ({@code <package.Service>/<Method>}), kept so that a call allocates no name. At most
 * {@value #MAX_KEPT} names are kept; the names of further methods are made per call.
 */
final class ResourceNames {

  static final int MAX_KEPT = 10_000;

  private final String prefix;
  private final ConcurrentHashMap<String, String> names = new ConcurrentHashMap<>();

  ResourceNames(String prefix) {
    this.prefix = prefix;
  }

  String of(MethodDescriptor<?, ?> method) {
    String fullName = method.getFullMethodName();
    String name = names.get(fullName);
    if (name != null) {
      return name;
    }
    name = prefix + fullName;
    if (names.size() < MAX_KEPT) {
      names.putIfAbsent(fullName, name);
    }
    return name;
  }
}
