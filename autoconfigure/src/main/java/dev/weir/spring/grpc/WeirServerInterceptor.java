package dev.weir.spring.grpc;

import dev.weir.BlockException;
import dev.weir.ContextScope;
import dev.weir.Criticality;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Resource;
import dev.weir.Weir;
import dev.weir.spring.web.CriticalityClaim;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Guards every call a gRPC server receives as the {@link EntryType#IN} resource
 * {@code grpc:<service>/<method>} (the method's full name, such as
 * {@code grpc:shop.Catalog/GetProduct}), in the context {@value #CONTEXT_NAME} with the caller's
 * origin read from a metadata key, if one is configured.
 *
 * <p>A refused call is closed at once with the status and trailers of {@link GrpcRefusals}
 * ({@code RESOURCE_EXHAUSTED}, {@code UNAVAILABLE} or {@code PERMISSION_DENIED}, and
 * {@code grpc-retry-pushback-ms}); the service's handler is not started. An admitted call, unary or
 * streaming, holds its entry ({@link Weir#asyncEntry}) until it ends, exactly once:
 * <ul>
 *   <li>the service closes it: {@code OK} completes the entry, {@code CANCELLED} cancels it, any other
 *       status is a failure;
 *   <li>the client cancels it, its deadline passes or its transport fails: the entry is cancelled
 *       ({@link Entry#cancel()});
 *   <li>the service's handler throws: a failure (gRPC then closes the call with {@code UNKNOWN}).
 * </ul>
 * The handler's callbacks run in the same context and origin, so that what the service guards
 * (a {@code @RateLimited} method) sees the caller's origin and a {@code chain} rule can name
 * {@value #CONTEXT_NAME}. With a criticality metadata key, the value the call carries there is its
 * claim ({@link CriticalityClaim}): the call is {@link Criticality#CRITICAL} or the lower claim, and
 * the callbacks run with the claim current, so the calls they guard take the lower of their own
 * criticality and the claim.
 *
 * <p>With Spring gRPC, the auto-configured bean is applied to every service; otherwise add it to a
 * server with {@code ServerBuilder.intercept(interceptor)} or {@code ServerInterceptors.intercept}.
 */
public final class WeirServerInterceptor implements ServerInterceptor {

  /** The name of the context gRPC server calls run in: {@value}. */
  public static final String CONTEXT_NAME = "weir_grpc_context";

  /** The prefix of the resource names of server methods: {@value}. */
  public static final String RESOURCE_PREFIX = "grpc:";

  private final Weir weir;
  private final Metadata.@Nullable Key<String> originKey;
  private final Metadata.@Nullable Key<String> criticalityKey;
  private final ResourceNames names;

  /**
   * Creates the interceptor.
   *
   * @param weir the engine
   * @param originMetadata the request metadata key whose value is the caller's origin, or null for none
   * @throws IllegalArgumentException when {@code originMetadata} is not a valid ASCII metadata key
   */
  public WeirServerInterceptor(Weir weir, @Nullable String originMetadata) {
    this(weir, originMetadata, null);
  }

  /**
   * Creates the interceptor.
   *
   * @param weir the engine
   * @param originMetadata the request metadata key whose value is the caller's origin, or null for none
   * @param criticalityMetadata the request metadata key whose value is the call's claimed
   *     criticality ({@link CriticalityClaim}), or null for none
   * @throws IllegalArgumentException when a key is not a valid ASCII metadata key
   */
  public WeirServerInterceptor(Weir weir, @Nullable String originMetadata, @Nullable String criticalityMetadata) {
    this.weir = Objects.requireNonNull(weir, "weir");
    this.names = new ResourceNames(weir, RESOURCE_PREFIX);
    this.originKey = key(originMetadata);
    this.criticalityKey = key(criticalityMetadata);
  }

  private static Metadata.@Nullable Key<String> key(@Nullable String name) {
    return name == null || name.isBlank() ? null : Metadata.Key.of(name.strip(), Metadata.ASCII_STRING_MARSHALLER);
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(ServerCall<ReqT, RespT> call, Metadata headers,
      ServerCallHandler<ReqT, RespT> next) {
    Resource resource = names.of(call.getMethodDescriptor());
    String origin = origin(headers);
    Criticality claim = claim(headers);
    Entry entry;
    try (ContextScope scope = weir.enterContext(CONTEXT_NAME, origin)) {
      entry = resource.asyncEntry(EntryType.IN, 1, CriticalityClaim.bound(Criticality.CRITICAL, claim), null);
    } catch (BlockException refused) {
      call.close(GrpcRefusals.status(refused), GrpcRefusals.trailers(refused));
      return new ServerCall.Listener<>() { };
    }
    ServerCall.Listener<ReqT> listener;
    try (CriticalityClaim.Scope claimed = CriticalityClaim.open(claim);
        ContextScope scope = weir.enterContext(CONTEXT_NAME, origin)) {
      listener = next.startCall(new GuardedCall<>(call, entry), headers);
    } catch (RuntimeException | Error failed) {
      entry.recordError(failed);
      entry.close();
      throw failed;
    }
    return new GuardedListener<>(listener, entry, weir, origin, claim);
  }

  private @Nullable Criticality claim(Metadata headers) {
    Metadata.Key<String> key = criticalityKey;
    if (key == null) {
      return null;
    }
    Iterable<String> values = headers.getAll(key);
    return values == null ? null : CriticalityClaim.parse(values.iterator());
  }

  private @Nullable String origin(Metadata headers) {
    Metadata.Key<String> key = originKey;
    if (key == null) {
      return null;
    }
    String value = headers.get(key);
    return value == null ? null : value.strip();
  }

  /** The call as the service sees it: its close completes the entry. */
  private static final class GuardedCall<ReqT, RespT> extends ForwardingServerCall.SimpleForwardingServerCall<ReqT, RespT> {

    private final Entry entry;

    GuardedCall(ServerCall<ReqT, RespT> call, Entry entry) {
      super(call);
      this.entry = entry;
    }

    /** Completes the entry first: once the client has the status, it may call again and find the permit free. */
    @Override
    public void close(Status status, Metadata trailers) {
      Outcomes.complete(entry, status);
      super.close(status, trailers);
    }
  }

  /** The service's listener, run in the call's context; a cancel or a throw completes the entry. */
  private static final class GuardedListener<ReqT> extends ForwardingServerCallListener.SimpleForwardingServerCallListener<ReqT> {

    private final Entry entry;
    private final Weir weir;
    private final @Nullable String origin;
    private final @Nullable Criticality claim;

    GuardedListener(ServerCall.Listener<ReqT> listener, Entry entry, Weir weir, @Nullable String origin,
        @Nullable Criticality claim) {
      super(listener);
      this.entry = entry;
      this.weir = weir;
      this.origin = origin;
      this.claim = claim;
    }

    @Override
    public void onMessage(ReqT message) {
      try (CriticalityClaim.Scope claimed = CriticalityClaim.open(claim);
          ContextScope scope = weir.enterContext(CONTEXT_NAME, origin)) {
        super.onMessage(message);
      } catch (RuntimeException | Error failed) {
        entry.recordError(failed);
        throw failed;
      }
    }

    @Override
    public void onHalfClose() {
      try (CriticalityClaim.Scope claimed = CriticalityClaim.open(claim);
          ContextScope scope = weir.enterContext(CONTEXT_NAME, origin)) {
        super.onHalfClose();
      } catch (RuntimeException | Error failed) {
        entry.recordError(failed);
        throw failed;
      }
    }

    @Override
    public void onReady() {
      try (CriticalityClaim.Scope claimed = CriticalityClaim.open(claim);
          ContextScope scope = weir.enterContext(CONTEXT_NAME, origin)) {
        super.onReady();
      } catch (RuntimeException | Error failed) {
        entry.recordError(failed);
        throw failed;
      }
    }

    @Override
    public void onCancel() {
      try (CriticalityClaim.Scope claimed = CriticalityClaim.open(claim);
          ContextScope scope = weir.enterContext(CONTEXT_NAME, origin)) {
        super.onCancel();
      } finally {
        entry.cancel();
      }
    }

    @Override
    public void onComplete() {
      try (CriticalityClaim.Scope claimed = CriticalityClaim.open(claim);
          ContextScope scope = weir.enterContext(CONTEXT_NAME, origin)) {
        super.onComplete();
      } finally {
        entry.close();
      }
    }
  }
}
