package dev.weir.spring.grpc;

import static dev.weir.spring.grpc.GrpcCalls.PUSHBACK;
import static dev.weir.spring.grpc.GrpcCalls.eventually;
import static dev.weir.spring.grpc.GrpcCalls.failure;
import static dev.weir.spring.grpc.GrpcCalls.unary;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.FlowException;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.grpc.WeirGrpcAutoConfiguration;
import dev.weir.spring.grpc.GrpcServerInterceptorTests.Ignored;
import dev.weir.spring.grpc.GrpcServerInterceptorTests.Received;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.ManagedChannel;
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
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The auto-configured {@link WeirClientInterceptor} on a real channel to a real gRPC server (Netty,
 * a random port, without Weir): admitted, refused (nothing is sent), failed, cancelled, deadline,
 * server streaming cancelled mid-stream, client streaming ended by an error. A {@code threads} rule
 * of 1 on each method shows the permit returned after each case.
 */
@Timeout(60)
class GrpcClientInterceptorTests {

  private static final String UNARY = "grpc-client:test.Echo/Unary";
  private static final String STREAM = "grpc-client:test.Echo/Stream";
  private static final String COLLECT = "grpc-client:test.Echo/Collect";

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirGrpcAutoConfiguration.class))
      .withPropertyValues(
          "weir.flow[0].resource=" + UNARY, "weir.flow[0].grade=threads", "weir.flow[0].count=1",
          "weir.flow[1].resource=" + STREAM, "weir.flow[1].grade=threads", "weir.flow[1].count=1",
          "weir.flow[2].resource=" + COLLECT, "weir.flow[2].grade=threads", "weir.flow[2].count=1");

  private void withClient(ApplicationContextRunner runner, ClientTest test) {
    runner.run(context -> {
      EchoService service = new EchoService();
      Server server = service.start();
      ManagedChannel channel = GrpcCalls.channel(server);
      try {
        test.run(service, GrpcCalls.through(channel, context.getBean(WeirClientInterceptor.class)), context.getBean(Weir.class));
      } finally {
        service.release();
        GrpcCalls.shutdown(channel, server);
      }
    });
  }

  @FunctionalInterface
  interface ClientTest {
    void run(EchoService service, Channel channel, Weir weir) throws Exception;
  }

  @Test
  void anAdmittedCallIsSentAndCompletesItsEntryBeforeTheCallerHasTheAnswer() {
    withClient(runner, (service, channel, weir) -> {
      for (int i = 0; i < 5; i++) {
        assertThat(unary(channel, "ok")).as("the threads rule of 1 admits each call after the last").isEqualTo("ok");
      }
      ResourceStatistics stats = weir.statistics(UNARY);
      assertThat(stats.totalSucceeded()).isEqualTo(5);
      assertThat(stats.activeCalls()).isZero();
    });
  }

  @Test
  void aRefusedCallIsNeverSent() {
    withClient(runner.withPropertyValues("weir.flow[3].resource=" + UNARY, "weir.flow[3].count=0"),
        (service, channel, weir) -> {
          StatusRuntimeException refused = failure(channel, "ok");
          assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
          assertThat(refused).hasCauseInstanceOf(FlowException.class);
          assertThat(Long.parseLong(refused.getTrailers().get(PUSHBACK))).isPositive();
          assertThat(service.started.get()).as("calls that reached the server").isZero();
          assertThat(weir.statistics(UNARY).totalBlocked()).isEqualTo(1);
        });
  }

  @Test
  void aFailedCallIsRecordedAndReturnsItsPermit() {
    withClient(runner, (service, channel, weir) -> {
      assertThat(failure(channel, "fail").getStatus().getCode()).isEqualTo(Status.Code.INTERNAL);
      ResourceStatistics stats = weir.statistics(UNARY);
      assertThat(stats.totalFailed()).isEqualTo(1);
      assertThat(stats.activeCalls()).isZero();
      assertThat(unary(channel, "ok")).isEqualTo("ok");
    });
  }

  @Test
  void aCancelledCallReturnsItsPermitAtOnceAndIsNoFailure() {
    withClient(runner, (service, channel, weir) -> {
      ClientCall<String, String> call = channel.newCall(EchoService.UNARY, CallOptions.DEFAULT);
      ClientCalls.asyncUnaryCall(call, "hang", new Ignored());
      assertThat(service.hanging.await(10, TimeUnit.SECONDS)).isTrue();
      ResourceStatistics stats = weir.statistics(UNARY);
      assertThat(stats.activeCalls()).isEqualTo(1);
      assertThat(failure(channel, "ok").getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      call.cancel("gave up", null);
      assertThat(stats.activeCalls()).isZero();
      assertThat(unary(channel, "ok")).isEqualTo("ok");
      assertThat(stats.totalFailed()).isZero();
    });
  }

  @Test
  void aCallPastItsDeadlineIsCancelledNotFailed() {
    withClient(runner, (service, channel, weir) -> {
      try {
        ClientCalls.blockingUnaryCall(channel, EchoService.UNARY, CallOptions.DEFAULT.withDeadlineAfter(300, TimeUnit.MILLISECONDS), "hang");
        throw new AssertionError("the call should not answer");
      } catch (StatusRuntimeException late) {
        assertThat(late.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      }
      ResourceStatistics stats = weir.statistics(UNARY);
      assertThat(stats.activeCalls()).isZero();
      assertThat(stats.totalFailed()).as("the caller's own timeout").isZero();
      assertThat(unary(channel, "ok")).isEqualTo("ok");
    });
  }

  @Test
  void aServerStreamCancelledMidStreamReturnsItsPermit() {
    withClient(runner, (service, channel, weir) -> {
      ResourceStatistics[] stats = new ResourceStatistics[1];
      for (int round = 1; round <= 2; round++) {
        Context.CancellableContext context = Context.current().withCancellation();
        try {
          context.run(() -> {
            Iterator<String> messages = ClientCalls.blockingServerStreamingCall(channel, EchoService.STREAM,
                CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), "go");
            assertThat(messages.next()).isEqualTo("0");
            assertThat(messages.next()).isEqualTo("1");
          });
        } finally {
          context.cancel(null);
        }
        stats[0] = weir.statistics(STREAM);
        eventually("the stream's permit returned", () -> stats[0].activeCalls() == 0);
      }
      assertThat(stats[0].totalPassed()).isEqualTo(2);
      assertThat(stats[0].totalBlocked()).isZero();
      assertThat(stats[0].totalFailed()).isZero();
    });
  }

  @Test
  void aClientStreamEndedByAnErrorReturnsItsPermit() {
    withClient(runner, (service, channel, weir) -> {
      Received cancelled = new Received();
      StreamObserver<String> broken = ClientCalls.asyncClientStreamingCall(
          channel.newCall(EchoService.COLLECT, CallOptions.DEFAULT), cancelled);
      broken.onNext("a");
      broken.onError(new IllegalStateException("the client broke"));
      assertThat(cancelled.closed.await(10, TimeUnit.SECONDS)).isTrue();
      ResourceStatistics stats = weir.statistics(COLLECT);
      assertThat(stats.activeCalls()).isZero();

      Received answer = new Received();
      StreamObserver<String> bad = ClientCalls.asyncClientStreamingCall(
          channel.newCall(EchoService.COLLECT, CallOptions.DEFAULT), answer);
      bad.onNext("bad");
      assertThat(answer.closed.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(Status.fromThrowable(answer.error).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(stats.activeCalls()).isZero();
      assertThat(stats.totalFailed()).isEqualTo(1);

      Received joined = new Received();
      StreamObserver<String> whole = ClientCalls.asyncClientStreamingCall(
          channel.newCall(EchoService.COLLECT, CallOptions.DEFAULT), joined);
      whole.onNext("x");
      whole.onCompleted();
      assertThat(joined.closed.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(joined.value).isEqualTo("x");
    });
  }
}
