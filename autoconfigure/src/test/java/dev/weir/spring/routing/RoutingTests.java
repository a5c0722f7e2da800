package dev.weir.spring.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.FlowException;
import dev.weir.ResourceStatistics;
import dev.weir.Weir;
import dev.weir.spring.test.ManualTicker;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * Every routing case of {@code @RateLimited}, through real proxies; run with class-based proxies
 * ({@link CglibRoutingTests}) and interface-based ones ({@link JdkRoutingTests}). A call made in
 * origin "blocked" is refused by a rule (see routing-test.yml); other calls are admitted.
 */
abstract class RoutingTests {

  @Autowired
  Weir weir;

  @Autowired
  ManualTicker ticker;

  @Autowired
  Services.BlockHandlers blockHandlers;

  @Autowired
  Services.Fallbacks fallbacks;

  @Autowired
  Services.TypeLevel typeLevel;

  @Autowired
  Services.Limits limits;

  @Autowired
  Services.Inherited inherited;

  @Autowired
  Services.AnnotatedContract contract;

  /** Asserts the proxies are of the kind this class tests. */
  abstract void assertProxyKind(Object bean);

  @Test
  void beansAreProxiesOfTheExpectedKind() {
    for (Object bean : List.of(blockHandlers, fallbacks, typeLevel, limits, inherited, contract)) {
      assertProxyKind(bean);
    }
  }

  <T> T blocked(Callable<T> call) throws Exception {
    try (var scope = weir.enterContext("routing-test", "blocked")) {
      return call.call();
    }
  }

  @Test
  void privateBlockHandlerOnTheBeansClassAnswersARefusal() throws Exception {
    assertThat(blockHandlers.privateHandler("a")).isEqualTo("ok:a");
    assertThat(blocked(() -> blockHandlers.privateHandler("a"))).isEqualTo("private-handler:a:flow");
  }

  @Test
  void blockHandlerTypedToFlowExceptionHandlesFlowBlocksOnly() throws Exception {
    assertThat(blocked(() -> blockHandlers.typed("flow"))).isEqualTo("flow-handler:rt.typed");
    // a DegradeException from inside the method is a refusal, but not of the handler's kind: fallback
    assertThat(blockHandlers.typed("degrade")).isEqualTo("fallback:DegradeException");
  }

  @Test
  void mostSpecificBlockHandlerOverloadApplies() throws Exception {
    assertThat(blocked(() -> blockHandlers.overloaded("flow"))).isEqualTo("flow");
    assertThat(blockHandlers.overloaded("degrade")).isEqualTo("any:degrade");
    assertThat(blockHandlers.overloaded("none")).isEqualTo("ok");
  }

  @Test
  void staticHandlersInAnotherClass() throws Exception {
    assertThat(blocked(() -> blockHandlers.staticHandlers("a"))).isEqualTo("static-block:a");
    assertThat(blockHandlers.staticHandlers("fail")).isEqualTo("static-fallback:fail:boom");
    assertThat(blockHandlers.staticHandlers("b")).isEqualTo("ok:b");
  }

  @Test
  void withoutHandlerTheFlowExceptionIsRethrownUnwrapped() {
    assertThat(blockHandlers.unhandled()).isEqualTo("ok");
    assertThatThrownBy(() -> blocked(() -> blockHandlers.unhandled()))
        .isExactlyInstanceOf(FlowException.class)
        .satisfies(e -> assertThat(((FlowException) e).resource()).isEqualTo("BlockHandlersService.unhandled"));
  }

  @Test
  void fallbackWithoutThrowableTakesFailuresAndRefusals() throws Exception {
    assertThat(fallbacks.plain("a")).isEqualTo("ok:a");
    assertThat(fallbacks.plain("fail")).isEqualTo("plain-fallback:fail");
    assertThat(blocked(() -> fallbacks.plain("b"))).isEqualTo("plain-fallback:b");
    ResourceStatistics statistics = weir.statistics("rt.plain");
    assertThat(statistics.totalFailed()).isEqualTo(1);
    assertThat(statistics.totalBlocked()).isEqualTo(1);
    assertThat(statistics.activeCalls()).isZero();
  }

  @Test
  void fallbackTypedToAThrowableSubclassHandlesThatKindOnly() throws Exception {
    assertThat(fallbacks.withCause("io")).isEqualTo("io-fallback:disk");
    assertThatThrownBy(() -> fallbacks.withCause("state"))
        .isExactlyInstanceOf(IllegalStateException.class).hasMessage("state");
  }

  @Test
  void exceptionsToIgnoreWinOverExceptionsToTrace() throws Exception {
    assertThat(fallbacks.traced("io")).isEqualTo("traced-fallback:io");
    assertThatThrownBy(() -> fallbacks.traced("missing")).isExactlyInstanceOf(FileNotFoundException.class);
    assertThatThrownBy(() -> fallbacks.traced("state")).isExactlyInstanceOf(IllegalStateException.class);
    assertThat(fallbacks.traced("fine")).isEqualTo("ok");
    ResourceStatistics statistics = weir.statistics("rt.traced");
    assertThat(statistics.totalFailed()).as("only the traced IOException counts as a failure").isEqualTo(1);
    assertThat(statistics.totalSucceeded()).isEqualTo(3);
    assertThat(statistics.activeCalls()).isZero();
  }

  @Test
  void checkedBusinessExceptionPropagatesAsDeclared() throws Exception {
    assertThatThrownBy(() -> fallbacks.checkedWithoutHandler("x"))
        .isExactlyInstanceOf(IOException.class).hasMessage("checked:x");
    assertThatThrownBy(() -> blocked(() -> fallbacks.checkedWithoutHandler("y")))
        .isExactlyInstanceOf(FlowException.class);
    assertThat(weir.statistics("rt.checked").totalFailed()).isEqualTo(1);
  }

  @Test
  void primitiveReturnThroughABoxedHandler() throws Exception {
    assertThat(fallbacks.primitive(21)).isEqualTo(42);
    assertThat(blocked(() -> fallbacks.primitive(21))).isEqualTo(-21);
  }

  @Test
  void defaultFallbackOnTheTypeCoversEveryPublicMethod() throws Exception {
    assertThat(typeLevel.covered("ok")).isEqualTo("ok");
    assertThat(typeLevel.covered("fail")).isEqualTo("default:IllegalStateException");
    assertThat(blocked(() -> typeLevel.covered("ok"))).isEqualTo("default:FlowException");
    assertThat(typeLevel.covered2()).isEqualTo("ok");
    assertThat(weir.statistics("TypeLevelService.covered2")).isNotNull();
  }

  @Test
  void methodAnnotationWinsButInheritsTheTypesDefaultFallback() throws Exception {
    assertThat(blocked(() -> typeLevel.own("ok"))).isEqualTo("default:FlowException");
    // IllegalStateException is not traced by the method's own annotation: it propagates untouched
    assertThatThrownBy(() -> typeLevel.own("fail")).isExactlyInstanceOf(IllegalStateException.class);
    assertThat(weir.statistics("rt.own").totalFailed()).isZero();
  }

  @Test
  void annotationOnASuperclassMethod() throws Exception {
    assertThat(inherited.inherited()).isEqualTo("ok");
    assertThat(blocked(() -> inherited.inherited())).isEqualTo("inherited-handler");
  }

  @Test
  void annotationOnAnInterfaceMethod() throws Exception {
    assertThat(contract.contract("a")).isEqualTo("ok:a");
    assertThat(blocked(() -> contract.contract("a"))).isEqualTo("contract-handler:a");
  }

  @Test
  void threadsLimitRefusesANestedCallAndFreesItsPlace() {
    assertThat(limits.runInside(() -> limits.runInside(() -> "inner"))).isEqualTo("busy");
    assertThat(weir.statistics("rt.threads").activeCalls()).isZero();
    assertThat(limits.runInside(() -> "again")).isEqualTo("again");
  }

  @Test
  void nestedRefusalGoesToTheOuterBlockHandler() throws Exception {
    // the inner call is refused and has no handler: its FlowException leaves the outer method's body,
    // and the outer method routes it like a refusal of its own
    assertThat(blocked(() -> limits.runInside(() -> blockHandlers.unhandled()))).isEqualTo("busy");
    assertThat(weir.statistics("rt.threads").totalFailed()).isZero();
  }

  @Test
  void rateLimitFollowsTheTicker() {
    assertThat(limits.tick()).isEqualTo("tick");
    assertThat(limits.tick()).isEqualTo("tick");
    assertThatThrownBy(() -> limits.tick()).isExactlyInstanceOf(FlowException.class)
        .satisfies(e -> assertThat(((FlowException) e).retryAfter()).isPositive()
            .isLessThanOrEqualTo(Duration.ofSeconds(1)));
    ticker.advance(Duration.ofSeconds(1));
    assertThat(limits.tick()).isEqualTo("tick");
  }

  @Test
  void degradeExceptionIsNotAFailure() {
    blockHandlers.typed("degrade");
    assertThat(weir.statistics("rt.typed").totalFailed()).isZero();
    assertThat(weir.statistics("rt.typed").totalSucceeded()).isPositive();
  }
}
