package dev.weir.spring.grpc;

import dev.weir.Resource;
import dev.weir.Weir;
import io.grpc.MethodDescriptor;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The resources of gRPC methods, named by a prefix and the method's full name
 * ({@code <package.Service>/<Method>}): the engine's handle on each, resolved on the method's first
 * call and kept, so that a call allocates no name and makes no lookup in the engine. At most
 * {@value #MAX_KEPT} handles are kept (a client may call any number of method names): the handles
 * of further methods are resolved per call, each a name and a handle, which find the same resource.
 */
final class ResourceNames {

  static final int MAX_KEPT = 10_000;

  private final Weir weir;
  private final String prefix;
  private final ConcurrentHashMap<String, Resource> handles = new ConcurrentHashMap<>();

  ResourceNames(Weir weir, String prefix) {
    this.weir = weir;
    this.prefix = prefix;
  }

  Resource of(MethodDescriptor<?, ?> method) {
    String fullName = method.getFullMethodName();
    Resource handle = handles.get(fullName);
    if (handle != null) {
      return handle;
    }
    handle = weir.resource(prefix + fullName);
    if (handles.size() < MAX_KEPT) {
      Resource raced = handles.putIfAbsent(fullName, handle);
      if (raced != null) {
        return raced;
      }
    }
    return handle;
  }
}
