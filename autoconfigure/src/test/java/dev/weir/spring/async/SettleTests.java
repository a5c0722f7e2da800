package dev.weir.spring.async;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.weir.FlowException;
import dev.weir.annotation.RateLimited;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.metrics.WeirMetricsAutoConfiguration;
import dev.weir.spring.metrics.SettleMeterBinder;
import dev.weir.spring.test.CpuTime;
import dev.weir.spring.test.ManualTicker;
import example.settle.Answer;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code @RateLimited(settle = ...)} in a real context: each call takes {@code permits} = 50 of a
 * flow rule of 100 an hour (on a driven ticker that never moves), and is settled to what its result
 * says it cost. Settled to 1, call {@code k} finds {@code k} permits taken and is admitted while
 * {@code k + 50 <= 100}: 51 calls where the estimate alone admits 2. A call whose cost cannot be read,
 * that fails or that is cancelled keeps its estimate: 2 calls.
 */
class SettleTests {

  private static final int SETTLED_TO_ONE = 51;
  private static final int ESTIMATE_KEPT = 2;

  private final ApplicationContextRunner contexts = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
          SimpleMetricsExportAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
          WeirAutoConfiguration.class, WeirMetricsAutoConfiguration.class))
      .withBean(ManualTicker.class, ManualTicker::new);

  private ApplicationContextRunner withRules(String... resources) {
    List<String> properties = new ArrayList<>();
    for (int i = 0; i < resources.length; i++) {
      properties.add("weir.flow[" + i + "].resource=" + resources[i]);
      properties.add("weir.flow[" + i + "].count=100");
      properties.add("weir.flow[" + i + "].interval=1h");
    }
    return contexts.withBean(TokenService.class).withPropertyValues(properties.toArray(String[]::new));
  }

  /** Calls of the application's own: answers of a fixed cost, in each form a method may return. */
  static class TokenService {
    private volatile long cost = 1;

    /** Sets the cost of the answers from now on (a method: the bean is a proxy, its fields are not the target's). */
    public void cost(long tokens) {
      cost = tokens;
    }

    // tag::settle-sync[]
    @RateLimited(value = "settle.sync", permits = 50, settle = "#result.usage.totalTokens")
    public Answer sync(String prompt) {
      return Answer.of(cost);
    }
    // end::settle-sync[]

    @RateLimited(value = "settle.stage", permits = 50, settle = "#result.usage.totalTokens")
    public CompletionStage<Answer> stage(String prompt) {
      return CompletableFuture.supplyAsync(() -> Answer.of(cost));
    }

    @RateLimited(value = "settle.mono", permits = 50, settle = "#result.usage.totalTokens")
    public Mono<Answer> mono(String prompt) {
      return Mono.fromSupplier(() -> Answer.of(cost));
    }

    /** Streams chunks; only the last carries the usage. */
    // tag::settle-flux[]
    @RateLimited(value = "settle.flux", permits = 50, settle = "#result.usage.totalTokens")
    public Flux<Answer> flux(String prompt) {
      return Flux.range(0, 20).map(i -> i < 19 ? Answer.chunk("chunk " + i) : Answer.of(cost));
    }
    // end::settle-flux[]

    /** A cost read from an argument, known only once the call is done with it (its length here). */
    @RateLimited(value = "settle.args", permits = 50, settle = "#prompt.length()")
    public Answer args(String prompt) {
      return Answer.chunk("");
    }

    /** #args is the arguments alone, without the result: a cost of 1 here, not 2. */
    @RateLimited(value = "settle.allArgs", permits = 50, settle = "#args.length")
    public Answer allArgs(String prompt) {
      return Answer.of(1000);
    }

    /** Without a result, a cost of the arguments (bytes sent, say). */
    @RateLimited(value = "settle.void", permits = 50, settle = "#p0.length()")
    public void send(String bytes) {
    }

    @RateLimited(value = "settle.null", permits = 50, settle = "#result.usage.totalTokens")
    public Answer nothing() {
      return null;
    }

    @RateLimited(value = "settle.noUsage", permits = 50, settle = "#result.usage.totalTokens")
    public Answer noUsage() {
      return Answer.chunk("no usage");
    }

    @RateLimited(value = "settle.text", permits = 50, settle = "#result.text")
    public Answer text() {
      return Answer.chunk("12");
    }

    @RateLimited(value = "settle.number", permits = 50, settle = "#result")
    public Number number(Number value) {
      return value;
    }

    @RateLimited(value = "settle.failing", permits = 50, settle = "#result.usage.totalTokens")
    public Answer failing() {
      throw new IllegalStateException("the model is down");
    }

    @RateLimited(value = "settle.emptyMono", permits = 50, settle = "#result.usage.totalTokens")
    public Mono<Answer> emptyMono() {
      return Mono.empty();
    }

    @RateLimited(value = "settle.fluxError", permits = 50, settle = "#result.usage.totalTokens")
    public Flux<Answer> fluxError() {
      return Flux.concat(Flux.just(Answer.of(1)), Flux.error(new IllegalStateException("cut off")));
    }

    /** A stream with a fallback: its error is answered by the fallback, and the call keeps its estimate. */
    @RateLimited(value = "settle.fluxFallback", permits = 50, settle = "#result.usage.totalTokens",
        fallback = "cached")
    public Flux<Answer> fluxWithFallback(boolean fail) {
      return fail ? Flux.concat(Flux.just(Answer.chunk("partial")), Flux.error(new IllegalStateException("cut off")))
          : Flux.just(Answer.chunk("a"), Answer.of(1));
    }

    Flux<Answer> cached(boolean fail, IllegalStateException failure) { // failures only: refusals pass on
      return Flux.just(Answer.chunk("cached"));
    }

    @RateLimited(value = "settle.huge", permits = 50,
        settle = "(#result.parts[99999].text + #result.text + #result.text + #result.text).length()")
    public Answer huge(Answer answer) {
      return answer;
    }
  }

  /** Calls {@code call} until a rule refuses it; returns how many were admitted (at most 1000). */
  private static int admitted(Runnable call) {
    for (int i = 0; i < 1000; i++) {
      Throwable refused = catchThrowable(call::run);
      if (refused != null) {
        Throwable cause = refused;
        while (!(cause instanceof FlowException) && cause.getCause() != null) {
          cause = cause.getCause();
        }
        assertThat(cause).as("call %d", i).isInstanceOf(FlowException.class);
        return i;
      }
    }
    return 1000;
  }

  private static double failures(ApplicationContext context, String resource) {
    return context.getBean(MeterRegistry.class).get(SettleMeterBinder.FAILURES).tag("resource", resource)
        .functionCounter().count();
  }

  @Test
  void aSynchronousCallIsSettledToItsResultsCost() {
    withRules("settle.sync").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      assertThat(admitted(() -> service.sync("hi"))).isEqualTo(SETTLED_TO_ONE);
      assertThat(failures(context, "settle.sync")).isZero();
    });
  }

  @Test
  void aCostOverTheEstimateIsADebt() {
    withRules("settle.sync").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      service.cost(90);
      // 50 taken, settled to 90: the next call finds 90 + 50 > 100
      assertThat(admitted(() -> service.sync("long"))).isEqualTo(1);
    });
  }

  @Test
  void aStageIsSettledToTheValueItCompletesWith() {
    withRules("settle.stage").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      assertThat(admitted(() -> service.stage("hi").toCompletableFuture().join())).isEqualTo(SETTLED_TO_ONE);
    });
  }

  @Test
  void aMonoIsSettledToItsValue() {
    withRules("settle.mono").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      assertThat(admitted(() -> service.mono("hi").block(Duration.ofSeconds(10)))).isEqualTo(SETTLED_TO_ONE);
    });
  }

  @Test
  void aFluxIsSettledToItsLastElement() {
    withRules("settle.flux").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      assertThat(admitted(() -> assertThat(service.flux("hi").collectList().block(Duration.ofSeconds(10)))
          .hasSize(20))).isEqualTo(SETTLED_TO_ONE);
      assertThat(failures(context, "settle.flux")).as("the chunks before the last are not read").isZero();
    });
  }

  @Test
  void theArgumentsAreReadAsForKeys() {
    withRules("settle.args").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      // "x" costs 1
      assertThat(admitted(() -> service.args("x"))).isEqualTo(SETTLED_TO_ONE);
    });
  }

  @Test
  void allArgumentsAreTheArgumentsWithoutTheResult() {
    withRules("settle.allArgs").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      assertThat(admitted(() -> service.allArgs("x"))).isEqualTo(SETTLED_TO_ONE);
    });
  }

  @Test
  void aMethodWithoutAResultIsSettledToACostOfItsArguments() {
    withRules("settle.void").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      assertThat(admitted(() -> service.send("x"))).isEqualTo(SETTLED_TO_ONE);
      assertThat(failures(context, "settle.void")).isZero();
    });
  }

  @Test
  void numbersOfEachKindAreCostsAndFractionsRoundUp() {
    withRules("settle.number").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      for (Number one : List.<Number>of(1, 1L, (short) 1, (byte) 1, java.math.BigInteger.ONE, 0.5, 0.25f,
          new BigDecimal("0.001"))) {
        service.number(one);
      }
      // 8 calls settled to 1 each: 8 + 50 <= 100, then 43 more
      assertThat(admitted(() -> service.number(1))).isEqualTo(SETTLED_TO_ONE - 8);
      assertThat(failures(context, "settle.number")).isZero();
    });
  }

  @Test
  void aCostThatCannotBeReadKeepsTheEstimateAndIsCounted() {
    withRules("settle.null", "settle.noUsage", "settle.text", "settle.number", "settle.emptyMono").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      assertThat(admitted(service::nothing)).as("a null result").isEqualTo(ESTIMATE_KEPT);
      assertThat(failures(context, "settle.null")).isEqualTo(ESTIMATE_KEPT);
      assertThat(admitted(service::noUsage)).as("a member of null").isEqualTo(ESTIMATE_KEPT);
      assertThat(failures(context, "settle.noUsage")).isEqualTo(ESTIMATE_KEPT);
      assertThat(admitted(service::text)).as("text is no number").isEqualTo(ESTIMATE_KEPT);
      assertThat(failures(context, "settle.text")).isEqualTo(ESTIMATE_KEPT);
      assertThat(admitted(() -> service.emptyMono().block(Duration.ofSeconds(10)))).as("an empty Mono")
          .isEqualTo(ESTIMATE_KEPT);
      assertThat(failures(context, "settle.emptyMono")).isEqualTo(ESTIMATE_KEPT);
      // negative, NaN, infinite: 2 calls take the 100 permits; the third is refused
      service.number(-1);
      service.number(Double.NaN);
      assertThat(catchThrowable(() -> service.number(Double.POSITIVE_INFINITY))).isInstanceOf(FlowException.class);
      assertThat(failures(context, "settle.number")).isEqualTo(2);
    });
  }

  @Test
  void aFailedCallKeepsItsEstimateAndIsNoSettleFailure() {
    withRules("settle.failing", "settle.fluxError").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      for (int i = 0; i < ESTIMATE_KEPT; i++) {
        assertThat(catchThrowable(service::failing)).isInstanceOf(IllegalStateException.class);
        assertThat(catchThrowable(() -> service.fluxError().blockLast(Duration.ofSeconds(10))))
            .isInstanceOf(IllegalStateException.class);
      }
      assertThat(catchThrowable(service::failing)).isInstanceOf(FlowException.class);
      assertThat(catchThrowable(() -> service.fluxError().blockLast(Duration.ofSeconds(10))))
          .isInstanceOf(FlowException.class);
      assertThat(failures(context, "settle.failing")).isZero();
      assertThat(failures(context, "settle.fluxError")).isZero();
    });
  }

  @Test
  void aSettledStreamWithHandlersIsSettledOnCompleteAndFallsBackOnError() {
    withRules("settle.fluxFallback").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      assertThat(service.fluxWithFallback(true).map(Answer::text).collectList().block(Duration.ofSeconds(10)))
          .containsExactly("partial", "cached");
      // 50 kept by the failed call; then cost-1 calls while 50 + k + 50 <= 100: 1 call
      assertThat(admitted(() -> service.fluxWithFallback(false).blockLast(Duration.ofSeconds(10)))).isEqualTo(1);
      assertThat(failures(context, "settle.fluxFallback")).isZero();
    });
  }

  @Test
  void aCancelledFluxKeepsItsEstimate() {
    withRules("settle.flux").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      assertThat(admitted(() -> service.flux("hi").take(3).blockLast(Duration.ofSeconds(10))))
          .isEqualTo(ESTIMATE_KEPT);
      assertThat(failures(context, "settle.flux")).isZero();
    });
  }

  /**
   * A result of 30 million characters and 100,000 parts: the expression reads what it names, each
   * once (three joins of the text, one index), so a call costs time linear in what it reads. The bound
   * is on this thread's CPU time, generous for the 90 million characters copied.
   */
  @Test
  void aWalkOfAHugeResultIsBounded() {
    withRules("settle.huge").run(context -> {
      TokenService service = context.getBean(TokenService.class);
      List<Answer> parts = new ArrayList<>();
      for (int i = 0; i < 100_000; i++) {
        parts.add(Answer.of(1000));
      }
      Answer huge = new Answer("x".repeat(10_000_000), null, parts);
      long start = CpuTime.current();
      service.huge(huge);
      Duration took = Duration.ofNanos(CpuTime.current() - start);
      assertThat(took).as("CPU time of one settled call").isLessThan(Duration.ofSeconds(5));
      assertThat(failures(context, "settle.huge")).isZero();
      // settled to 30,000,006 ("answer" and three times the text): a debt far over the count
      // (a cost of 1 would have left room for 50 more calls)
      assertThat(catchThrowable(() -> service.huge(huge))).isInstanceOf(FlowException.class);
    });
  }

  // --- declarations that cannot apply stop the start

  static class VoidResult {
    @RateLimited(value = "v", settle = "#result.usage.totalTokens")
    public void call() {
    }
  }

  static class MonoOfVoid {
    @RateLimited(value = "mv", settle = "#result")
    public Mono<Void> call() {
      return Mono.empty();
    }
  }

  static class StageOfVoid {
    @RateLimited(value = "sv", settle = "#result")
    public CompletableFuture<Void> call() {
      return CompletableFuture.completedFuture(null);
    }
  }

  static class SyntaxError {
    @RateLimited(value = "se", settle = "#result.usage.")
    public Answer call() {
      return Answer.of(1);
    }
  }

  static class ForbiddenMember {
    @RateLimited(value = "fm", settle = "#result.getClass().getClassLoader()")
    public Answer call() {
      return Answer.of(1);
    }
  }

  static class NoSuchAccessor {
    @RateLimited(value = "na", settle = "#result.usage.tokens")
    public Answer call() {
      return Answer.of(1);
    }
  }

  static class PastTheArguments {
    @RateLimited(value = "pa", settle = "#p1")
    public Answer call(String prompt) {
      return Answer.of(1);
    }
  }

  static class ArgumentNamedResult {
    @RateLimited(value = "ar", settle = "#result.usage.totalTokens")
    public Answer call(Answer result) {
      return result;
    }
  }

  private void refusedAtStart(Class<?> bean, String... reasons) {
    contexts.withBean(bean).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .isInstanceOf(dev.weir.spring.aop.RateLimitedDeclarationException.class)
          .hasMessageContaining(bean.getName() + ".call(")
          .hasMessageContaining("sets settle = ")
          .hasMessageContaining("cannot give the cost of its calls: ");
      for (String reason : reasons) {
        assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(reason);
      }
    });
  }

  @Test
  void resultOfAMethodWithoutOneStopsTheStart() {
    refusedAtStart(VoidResult.class, "#result", "returns no value");
    refusedAtStart(MonoOfVoid.class, "#result", "returns no value");
    refusedAtStart(StageOfVoid.class, "#result", "returns no value");
  }

  @Test
  void anExpressionTheLanguageRefusesStopsTheStart() {
    refusedAtStart(SyntaxError.class);
    refusedAtStart(ForbiddenMember.class, "getClass");
    refusedAtStart(NoSuchAccessor.class, "tokens");
    refusedAtStart(PastTheArguments.class, "#p1", "past the 1 arguments");
    refusedAtStart(ArgumentNamedResult.class, "named 'result'");
  }

  @Test
  void theFailureNamesTheMethodAndWhatToDo() {
    contexts.withBean(VoidResult.class).run(context -> {
      assertThat(context.getStartupFailure()).rootCause()
          .isInstanceOfSatisfying(dev.weir.spring.aop.RateLimitedDeclarationException.class, failure -> {
            assertThat(failure.beanClass()).isEqualTo(VoidResult.class);
            assertThat(failure.method()).isNotNull().extracting(java.lang.reflect.Method::getName).isEqualTo("call");
            assertThat(failure.action()).contains("Fix the settle expression");
          });
    });
  }
}
