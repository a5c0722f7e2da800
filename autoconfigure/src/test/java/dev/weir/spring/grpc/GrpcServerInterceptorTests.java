package dev.weir.spring.grpc;

import static dev.weir.spring.grpc.GrpcCalls.PUSHBACK;
import static dev.weir.spring.grpc.GrpcCalls.eventually;
import static dev.weir.spring.grpc.GrpcCalls.failure;
import static dev.weir.spring.grpc.GrpcCalls.unary;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.grpc.WeirGrpcAutoConfiguration;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The auto-configured {@link WeirServerInterceptor} in front of a real gRPC server (Netty, a random
 * port) called through a real channel: admitted, refused (the handler does not run), failed, client
 * cancel, deadline, server streaming cancelled mid-stream, client streaming ended by an error. Each
 * method has a {@code threads} rule of 1: a call admitted after each case shows that the permit was
 * returned.
 */
@Timeout(60)
class GrpcServerInterceptorTests {

  private static final String UNARY = "grpc:test.Echo/Unary";
  private static final String STREAM = "grpc:test.Echo/Stream";
  private static final String COLLECT = "grpc:test.Echo/Collect";

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirGrpcAutoConfiguration.class))
      .withPropertyValues(
          "weir.flow[0].resource=" + UNARY, "weir.flow[0].grade=threads", "weir.flow[0].count=1",
          "weir.flow[1].resource=" + STREAM, "weir.flow[1].grade=threads", "weir.flow[1].count=1",
          "weir.flow[2].resource=" + COLLECT, "weir.flow[2].grade=threads", "weir.flow[2].count=1");

  /** Runs {@code test} against a server behind the context's interceptor. */
  private void withServer(ApplicationContextRunner runner, ServerTest test) {
    runner.run(context -> {
      EchoService service = new EchoService();
      Server server = service.start(context.getBean(WeirServerInterceptor.class));
      ManagedChannel channel = GrpcCalls.channel(server);
      try {
        test.run(context, service, channel, context.getBean(Weir.class));
      } finally {
        service.release();
        GrpcCalls.shutdown(channel, server);
      }
    });
  }

  @FunctionalInterface
  interface ServerTest {
    void run(AssertableApplicationContext context, EchoService service, ManagedChannel channel, Weir weir) throws Exception;
  }

  @Test
  void anAdmittedCallRunsAndCompletesItsEntry() {
    withServer(runner, (context, service, channel, weir) -> {
      assertThat(unary(channel, "ok")).isEqualTo("ok");
      assertThat(unary(channel, "again")).isEqualTo("again");
      ResourceStatistics stats = weir.statistics(UNARY);
      assertThat(stats.totalPassed()).isEqualTo(2);
      assertThat(stats.totalSucceeded()).isEqualTo(2);
      assertThat(stats.totalFailed()).isZero();
      eventually("no call active", () -> stats.activeCalls() == 0);
    });
  }

  @Test
  void aRefusedCallEndsWithResourceExhaustedAndThePushbackWithoutRunningTheHandler() {
    withServer(runner.withPropertyValues("weir.flow[3].resource=" + UNARY, "weir.flow[3].count=0"),
        (context, service, channel, weir) -> {
          StatusRuntimeException refused = failure(channel, "ok");
          assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
          assertThat(refused.getStatus().getDescription()).isEqualTo("Too many calls of " + UNARY + ".");
          Metadata trailers = refused.getTrailers();
          assertThat(trailers).isNotNull();
          assertThat(Long.parseLong(trailers.get(PUSHBACK))).isPositive();
          assertThat(service.started.get()).as("calls the handler started").isZero();
          assertThat(weir.statistics(UNARY).totalBlocked()).isEqualTo(1);
        });
  }

  @Test
  void anOpenCircuitEndsCallsWithUnavailableAndPushesBackUntilItMayClose() {
    withServer(runner.withPropertyValues("weir.degrade[0].resource=" + UNARY, "weir.degrade[0].strategy=error-count",
        "weir.degrade[0].threshold=1", "weir.degrade[0].min-request-amount=1", "weir.degrade[0].open-duration=10s"),
        (context, service, channel, weir) -> {
          assertThat(failure(channel, "fail").getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
          assertThat(failure(channel, "fail").getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
          StatusRuntimeException refused = failure(channel, "ok");
          assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
          assertThat(Long.parseLong(refused.getTrailers().get(PUSHBACK))).isBetween(1L, 10_000L);
          assertThat(service.started.get()).isEqualTo(2);
        });
  }

  @Test
  void theOriginComesFromTheConfiguredMetadataAndAnAuthorityRefusalSaysDoNotRetry() {
    withServer(runner.withPropertyValues("weir.grpc.origin-metadata=X-Caller", "weir.authority[0].resource=" + UNARY,
        "weir.authority[0].strategy=white", "weir.authority[0].limit-app=partner"),
        (context, service, channel, weir) -> {
          assertThat(unary(GrpcCalls.withHeader(channel, "x-caller", " partner "), "ok")).isEqualTo("ok");
          StatusRuntimeException denied = failure(GrpcCalls.withHeader(channel, "x-caller", "stranger"), "ok");
          assertThat(denied.getStatus().getCode()).isEqualTo(Status.Code.PERMISSION_DENIED);
          assertThat(denied.getTrailers().get(PUSHBACK)).isEqualTo("-1");
          assertThat(service.started.get()).isEqualTo(1);
        });
  }

  @Test
  void whatTheServiceGuardsSeesTheCallersOrigin() {
    withServer(runner.withPropertyValues("weir.grpc.origin-metadata=x-caller", "weir.authority[0].resource=echo.inner",
        "weir.authority[0].strategy=white", "weir.authority[0].limit-app=partner"),
        (context, service, channel, weir) -> {
          service.weir = weir;
          assertThat(unary(GrpcCalls.withHeader(channel, "x-caller", "partner"), "inner")).isEqualTo("inner ok");
          StatusRuntimeException refusedInside = failure(GrpcCalls.withHeader(channel, "x-caller", "stranger"), "inner");
          assertThat(refusedInside.getStatus().getCode()).as("the handler threw the nested refusal").isEqualTo(Status.Code.UNKNOWN);
          assertThat(weir.statistics("echo.inner").totalBlocked()).isEqualTo(1);
          assertThat(weir.statistics(UNARY).totalBlocked()).isZero();
        });
  }

  @Test
  void failuresAreRecordedAndReturnTheirPermits() {
    withServer(runner, (context, service, channel, weir) -> {
      assertThat(failure(channel, "fail").getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
      assertThat(failure(channel, "throw").getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
      ResourceStatistics stats = weir.statistics(UNARY);
      eventually("both failures recorded", () -> stats.totalFailed() == 2 && stats.activeCalls() == 0);
      assertThat(unary(channel, "ok")).as("the threads rule of 1 admits the next call").isEqualTo("ok");
      assertThat(stats.totalBlocked()).isZero();
    });
  }

  @Test
  void aCallTheClientCancelsReturnsItsPermit() {
    withServer(runner, (context, service, channel, weir) -> {
      ClientCall<String, String> call = channel.newCall(EchoService.UNARY, CallOptions.DEFAULT);
      ClientCalls.asyncUnaryCall(call, "hang", new Ignored());
      assertThat(service.hanging.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(failure(channel, "ok").getStatus().getCode()).as("one call at a time")
          .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      call.cancel("the client gave up", null);
      ResourceStatistics stats = weir.statistics(UNARY);
      eventually("the cancel reached the server", () -> service.cancelled.get() == 1 && stats.activeCalls() == 0);
      assertThat(unary(channel, "ok")).isEqualTo("ok");
      assertThat(stats.totalFailed()).as("a cancel is no failure").isZero();
    });
  }

  @Test
  void aCallWhoseDeadlinePassesReturnsItsPermit() {
    withServer(runner, (context, service, channel, weir) -> {
      StatusRuntimeException late;
      try {
        ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.MILLISECONDS), "hang");
        throw new AssertionError("the call should not answer");
      } catch (StatusRuntimeException expected) {
        late = expected;
      }
      assertThat(late.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      ResourceStatistics stats = weir.statistics(UNARY);
      eventually("the server saw the deadline", () -> stats.activeCalls() == 0);
      assertThat(unary(channel, "ok")).isEqualTo("ok");
    });
  }

  @Test
  void aServerStreamCancelledMidStreamReturnsItsPermit() {
    withServer(runner, (context, service, channel, weir) -> {
      readThreeThenCancel(channel);
      ResourceStatistics stats = weir.statistics(STREAM);
      eventually("the stream ended on the server", () -> service.cancelled.get() == 1 && stats.activeCalls() == 0);
      readThreeThenCancel(channel);
      eventually("the second stream ended too", () -> service.cancelled.get() == 2 && stats.activeCalls() == 0);
      assertThat(stats.totalPassed()).isEqualTo(2);
      assertThat(stats.totalBlocked()).isZero();
    });
  }

  private static void readThreeThenCancel(Channel channel) {
    Context.CancellableContext context = Context.current().withCancellation();
    try {
      context.run(() -> {
        Iterator<String> messages = ClientCalls.blockingServerStreamingCall(channel, EchoService.STREAM,
            CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "go");
        assertThat(messages.next()).isEqualTo("0");
        assertThat(messages.next()).isEqualTo("1");
        assertThat(messages.next()).isEqualTo("2");
      });
    } finally {
      context.cancel(null);
    }
  }

  @Test
  void aClientStreamEndedByAnErrorReturnsItsPermit() {
    withServer(runner, (context, service, channel, weir) -> {
      ResourceStatistics stats;
      // the server answers the stream with an error
      Received answer = new Received();
      StreamObserver<String> requests = ClientCalls.asyncClientStreamingCall(
          channel.newCall(EchoService.COLLECT, CallOptions.DEFAULT), answer);
      requests.onNext("a");
      requests.onNext("bad");
      assertThat(answer.closed.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(Status.fromThrowable(answer.error).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      stats = weir.statistics(COLLECT);
      eventually("the failed stream returned its permit", () -> stats.activeCalls() == 0);
      assertThat(stats.totalFailed()).isEqualTo(1);

      // the client ends its stream with an error: the call is cancelled
      Received cancelled = new Received();
      StreamObserver<String> broken = ClientCalls.asyncClientStreamingCall(
          channel.newCall(EchoService.COLLECT, CallOptions.DEFAULT), cancelled);
      broken.onNext("a");
      broken.onError(new IllegalStateException("the client broke"));
      assertThat(cancelled.closed.await(10, TimeUnit.SECONDS)).isTrue();
      eventually("the cancelled stream returned its permit", () -> service.cancelled.get() == 1 && stats.activeCalls() == 0);

      Received joined = new Received();
      StreamObserver<String> whole = ClientCalls.asyncClientStreamingCall(
          channel.newCall(EchoService.COLLECT, CallOptions.DEFAULT), joined);
      whole.onNext("a");
      whole.onNext("b");
      whole.onCompleted();
      assertThat(joined.closed.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(joined.value).isEqualTo("a,b");
      assertThat(stats.totalBlocked()).isZero();
    });
  }

  /** Ignores a call's answer. */
  static final class Ignored implements StreamObserver<String> {
    @Override
    public void onNext(String value) {
    }

    @Override
    public void onError(Throwable t) {
    }

    @Override
    public void onCompleted() {
    }
  }

  /** Keeps a call's answer. */
  static final class Received implements StreamObserver<String> {
    final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
    volatile String value;
    volatile Throwable error;

    @Override
    public void onNext(String value) {
      this.value = value;
    }

    @Override
    public void onError(Throwable t) {
      error = t;
      closed.countDown();
    }

    @Override
    public void onCompleted() {
      closed.countDown();
    }
  }
}
