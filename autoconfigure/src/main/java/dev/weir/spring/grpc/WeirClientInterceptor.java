package dev.weir.spring.grpc;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Resource;
import dev.weir.Weir;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Guards every call made on a gRPC channel as the {@link EntryType#OUT} resource
 * {@code grpc-client:<service>/<method>}, in the calling thread's context (so an HTTP request's
 * origin applies to the calls it makes).
 *
 * <p>A refused call is never sent: it is closed at once, before {@code start} returns, with the
 * status and trailers a refusing server would send ({@link GrpcRefusals}), the
 * {@link BlockException} as the status' cause (a blocking stub's {@code StatusRuntimeException}
 * has it as its cause). An admitted call, unary or streaming, holds its entry until it closes,
 * exactly once: {@code OK} completes it; {@code CANCELLED} (the application cancelled the call) and
 * {@code DEADLINE_EXCEEDED} once the call's deadline (its own or its gRPC context's) has passed (the caller's timeout) cancel it
 * ({@link Entry#cancel()}); any other status is a failure. The entry is completed before the
 * application's listener hears of the close, so a permit is free again when a blocking stub returns.
 *
 * <p>With Spring gRPC, the auto-configured bean is applied to every channel it makes; otherwise add
 * it to a channel with {@code ManagedChannelBuilder.intercept(interceptor)} or
 * {@code ClientInterceptors.intercept}.
 */
public final class WeirClientInterceptor implements ClientInterceptor {

  /** The prefix of the resource names of called methods: {@value}. */
  public static final String RESOURCE_PREFIX = "grpc-client:";

  private final Weir weir;
  private final ResourceNames names;

  /**
   * Creates the interceptor.
   *
   * @param weir the engine
   */
  public WeirClientInterceptor(Weir weir) {
    this.weir = Objects.requireNonNull(weir, "weir");
    this.names = new ResourceNames(weir, RESOURCE_PREFIX);
  }

  @Override
  public <ReqT, RespT> ClientCall<ReqT, RespT> interceptCall(MethodDescriptor<ReqT, RespT> method,
      CallOptions callOptions, Channel next) {
    return new GuardedCall<>(next.newCall(method, callOptions), names.of(method), deadline(callOptions));
  }

  /** The call's effective deadline: its own or the current gRPC context's, whichever is sooner. */
  private static @Nullable Deadline deadline(CallOptions callOptions) {
    Deadline own = callOptions.getDeadline();
    Deadline inherited = Context.current().getDeadline();
    if (own == null) {
      return inherited;
    }
    return inherited == null ? own : own.minimum(inherited);
  }

  /** A call that asks Weir when it starts; refused, it is closed without being sent. */
  private static final class GuardedCall<ReqT, RespT> extends ForwardingClientCall.SimpleForwardingClientCall<ReqT, RespT> {

    private final Resource resource;
    private final @Nullable Deadline deadline;
    private volatile boolean refused;
    private volatile @Nullable Entry entry;

    GuardedCall(ClientCall<ReqT, RespT> call, Resource resource, @Nullable Deadline deadline) {
      super(call);
      this.resource = resource;
      this.deadline = deadline;
    }

    @Override
    public void start(Listener<RespT> listener, Metadata headers) {
      Entry admitted;
      try {
        admitted = resource.asyncEntry(EntryType.OUT, 1, (Object[]) null);
      } catch (BlockException refusal) {
        refused = true;
        listener.onClose(GrpcRefusals.status(refusal), GrpcRefusals.trailers(refusal));
        return;
      }
      entry = admitted;
      try {
        super.start(new GuardedListener<>(listener, admitted, deadline), headers);
      } catch (RuntimeException | Error failed) {
        admitted.recordError(failed);
        admitted.close();
        throw failed;
      }
    }

    @Override
    public void request(int numMessages) {
      if (!refused) {
        super.request(numMessages);
      }
    }

    @Override
    public void sendMessage(ReqT message) {
      if (!refused) {
        super.sendMessage(message);
      }
    }

    @Override
    public void halfClose() {
      if (!refused) {
        super.halfClose();
      }
    }

    @Override
    public void setMessageCompression(boolean enabled) {
      if (!refused) {
        super.setMessageCompression(enabled);
      }
    }

    @Override
    public boolean isReady() {
      return !refused && super.isReady();
    }

    @Override
    public void cancel(@Nullable String message, @Nullable Throwable cause) {
      if (refused) {
        return;
      }
      try {
        super.cancel(message, cause);
      } finally {
        Entry admitted = entry;
        if (admitted != null) {
          admitted.cancel();
        }
      }
    }
  }

  /** The application's listener; the close completes the entry first. */
  private static final class GuardedListener<RespT> extends ForwardingClientCallListener.SimpleForwardingClientCallListener<RespT> {

    private final Entry entry;
    private final @Nullable Deadline deadline;

    GuardedListener(ClientCall.Listener<RespT> listener, Entry entry, @Nullable Deadline deadline) {
      super(listener);
      this.entry = entry;
      this.deadline = deadline;
    }

    @Override
    public void onClose(Status status, Metadata trailers) {
      if (status.getCode() == Status.Code.DEADLINE_EXCEEDED && deadline != null && deadline.isExpired()) {
        entry.cancel();
      } else {
        Outcomes.complete(entry, status);
      }
      super.onClose(status, trailers);
    }
  }
}
