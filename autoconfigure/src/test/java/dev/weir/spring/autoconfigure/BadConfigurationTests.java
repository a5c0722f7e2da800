package dev.weir.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

/**
 * Starts that must fail: each case starts a real application and checks the failure report that
 * Spring Boot prints (through the failure analyzers) names the right property path, or the class
 * and method, and what is allowed.
 */
@ExtendWith(OutputCaptureExtension.class)
class BadConfigurationTests {

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({AopAutoConfiguration.class, WeirAutoConfiguration.class})
  static class App {
  }

  static Stream<Arguments> badProperties() {
    return Stream.of(
        bad("weir.flow[0].count", "must be a number >= 0", "weir.flow[0].resource=a", "weir.flow[0].count=-1"),
        bad("weir.flow[0].count", "is required", "weir.flow[0].resource=a"),
        bad("weir.flow[0].resource", "is required", "weir.flow[0].count=5"),
        bad("weir.flow[1].count", "must be a number >= 0", "weir.flow[0].resource=a", "weir.flow[0].count=1",
            "weir.flow[1].resource=b", "weir.flow[1].count=-2"),
        bad("weir.flow[0].count", "must be at most", "weir.flow[0].resource=a", "weir.flow[0].count=1e12"),
        bad("weir.flow[0].count", "whole number", "weir.flow[0].resource=a", "weir.flow[0].count=1.5",
            "weir.flow[0].grade=threads"),
        bad("weir.flow[0].grade", "FlowGrade", "weir.flow[0].resource=a", "weir.flow[0].count=1",
            "weir.flow[0].grade=bogus"),
        bad("weir.flow[0].control-behavior", "ControlBehavior", "weir.flow[0].resource=a", "weir.flow[0].count=1",
            "weir.flow[0].control-behavior=sometimes"),
        bad("weir.flow[0].interval", "Duration", "weir.flow[0].resource=a", "weir.flow[0].count=1",
            "weir.flow[0].interval=soon"),
        bad("weir.flow[0].interval", "whole milliseconds", "weir.flow[0].resource=a", "weir.flow[0].count=1",
            "weir.flow[0].interval=1500us"),
        bad("weir.flow[0].ref-resource", "is required for strategy related", "weir.flow[0].resource=a",
            "weir.flow[0].count=1", "weir.flow[0].strategy=related"),
        bad("weir.flow[0].ref-resource", "names resource 'nosuch'", "weir.flow[0].resource=a",
            "weir.flow[0].count=1", "weir.flow[0].strategy=related", "weir.flow[0].ref-resource=nosuch"),
        bad("weir.flow[0].control-behavior", "must be reject for grade threads", "weir.flow[0].resource=a",
            "weir.flow[0].count=1", "weir.flow[0].grade=threads", "weir.flow[0].control-behavior=warm-up"),
        bad("weir.flow[0].cold-factor", "must be at least 2", "weir.flow[0].resource=a", "weir.flow[0].count=9",
            "weir.flow[0].control-behavior=warm-up", "weir.flow[0].cold-factor=1"),
        bad("weir.flow[0].max-queueing-time", "must be from 0ms to 1h", "weir.flow[0].resource=a",
            "weir.flow[0].count=9", "weir.flow[0].control-behavior=queue", "weir.flow[0].max-queueing-time=-1s"),
        bad("weir.flow[0].max-queueing-time", "must be from 0ms to 1h, was PT4800000H", "weir.flow[0].resource=a",
            "weir.flow[0].count=9", "weir.flow[0].control-behavior=queue", "weir.flow[0].max-queueing-time=200000d"),
        bad("weir.flow[0].warm-up-period", "must be from 1ms to 1d, was PT4800000H", "weir.flow[0].resource=a",
            "weir.flow[0].count=9", "weir.flow[0].control-behavior=warm-up-queue",
            "weir.flow[0].warm-up-period=200000d"),
        bad("weir.flow[0].count", "more than 1d apart", "weir.flow[0].resource=a", "weir.flow[0].count=1e-10",
            "weir.flow[0].control-behavior=queue"),
        bad("weir.param-flow[0].max-queueing-time", "must be from 0ms to 1h", "weir.param-flow[0].resource=a",
            "weir.param-flow[0].count=10", "weir.param-flow[0].control-behavior=queue",
            "weir.param-flow[0].max-queueing-time=200000d"),
        bad("weir.param-flow[0].duration", "from 1ms to 1d", "weir.param-flow[0].resource=a",
            "weir.param-flow[0].count=10", "weir.param-flow[0].duration=200000d"),
        bad("weir.param-flow[0].exceptions[0].count", "more than 1d apart", "weir.param-flow[0].resource=a",
            "weir.param-flow[0].count=10", "weir.param-flow[0].exceptions[0].value=slow",
            "weir.param-flow[0].exceptions[0].count=1e-10"),
        bad("weir.system.max-avg-rt", "must be from 0ms to 1h", "weir.system.max-avg-rt=200000d"),
        bad("weir.cluster.timeout", "must be a positive duration up to 1m", "weir.cluster.timeout=200000d"),
        bad("weir.cluster.open-duration", "must be a positive duration up to 1d", "weir.cluster.open-duration=2d"),
        bad("weir.flow[0].exact", "needs control-behavior reject", "weir.flow[0].resource=a",
            "weir.flow[0].count=9", "weir.flow[0].control-behavior=queue", "weir.flow[0].exact=true"),
        bad("weir.flow[0].limit-app", "must be 'default', 'other' or an origin name", "weir.flow[0].resource=a",
            "weir.flow[0].count=9", "weir.flow[0].limit-app= "),
        bad("weir.flow[1]", "duplicate of rule [0]", "weir.flow[0].resource=a", "weir.flow[0].count=9",
            "weir.flow[1].resource=a", "weir.flow[1].count=9"),
        bad("weir.flow[0].cluster-mode", "needs a cluster client", "weir.flow[0].resource=a", "weir.flow[0].count=9",
            "weir.flow[0].cluster-mode=true"),
        bad("weir.cluster.timeout", "must be a positive duration", "weir.cluster.enabled=true",
            "weir.cluster.timeout=0ms"),
        bad("weir.cluster.open-duration", "must be a positive duration", "weir.cluster.open-duration=-1s"),
        bad("weir.cluster.key-prefix", "without braces", "weir.cluster.enabled=true", "weir.cluster.key-prefix={app}"),
        bad("weir.cluster.failure-threshold", "must be at least 1", "weir.cluster.failure-threshold=0"),
        bad("weir.cluster.max-in-flight", "must be at least 1", "weir.cluster.max-in-flight=0"),
        bad("weir.flow[0].interval", "multiple of 10ms with cluster-mode", "weir.cluster.enabled=true",
            "weir.flow[0].resource=a", "weir.flow[0].count=9", "weir.flow[0].cluster-mode=true",
            "weir.flow[0].interval=15ms"),
        bad("weir.flow[0].cluster-mode", "supports control-behavior reject only", "weir.cluster.enabled=true",
            "weir.flow[0].resource=a", "weir.flow[0].count=9", "weir.flow[0].cluster-mode=true",
            "weir.flow[0].control-behavior=warm-up"),
        bad("weir.flow[1].cluster-mode", "same interval as [0]", "weir.cluster.enabled=true",
            "weir.flow[0].resource=a", "weir.flow[0].count=9", "weir.flow[0].cluster-mode=true",
            "weir.flow[1].resource=a", "weir.flow[1].count=5", "weir.flow[1].cluster-mode=true"),
        bad("weir.degrade[0].threshold", "must be a ratio from 0 to 1", "weir.degrade[0].resource=a",
            "weir.degrade[0].strategy=error-ratio", "weir.degrade[0].threshold=1.5"),
        bad("weir.degrade[0].threshold", "is required", "weir.degrade[0].resource=a",
            "weir.degrade[0].strategy=error-count"),
        bad("weir.degrade[0].strategy", "is required", "weir.degrade[0].resource=a", "weir.degrade[0].threshold=3"),
        bad("weir.degrade[0].slow-call-threshold", "is required for strategy slow-ratio", "weir.degrade[0].resource=a",
            "weir.degrade[0].strategy=slow-ratio", "weir.degrade[0].threshold=0.5"),
        bad("weir.degrade[0].min-request-amount", "must be at least 1", "weir.degrade[0].resource=a",
            "weir.degrade[0].strategy=error-ratio", "weir.degrade[0].threshold=0.5",
            "weir.degrade[0].min-request-amount=0"),
        bad("weir.degrade[0].window", "must be \"<N> calls\" with N from 1 to 100000", "weir.degrade[0].resource=a",
            "weir.degrade[0].strategy=error-ratio", "weir.degrade[0].threshold=0.5", "weir.degrade[0].window=banana"),
        bad("weir.degrade[0].window", "was 200000 calls", "weir.degrade[0].resource=a",
            "weir.degrade[0].strategy=error-ratio", "weir.degrade[0].threshold=0.5",
            "weir.degrade[0].window=200000 calls"),
        bad("weir.degrade[0].min-request-amount", "must be at most the window's 3 calls", "weir.degrade[0].resource=a",
            "weir.degrade[0].strategy=error-ratio", "weir.degrade[0].threshold=0.5", "weir.degrade[0].window=3 calls"),
        bad("weir.flow[0].max-queueing-count", "applies to grade threads only", "weir.flow[0].resource=a",
            "weir.flow[0].count=5", "weir.flow[0].max-queueing-count=3"),
        bad("weir.flow[0].max-queueing-count", "needs a max-queueing-time above 0", "weir.flow[0].resource=a",
            "weir.flow[0].count=5", "weir.flow[0].grade=threads", "weir.flow[0].max-queueing-count=3"),
        bad("weir.flow[0].max-queueing-count", "must be from 0 (for count) to 100000", "weir.flow[0].resource=a",
            "weir.flow[0].count=5", "weir.flow[0].grade=threads", "weir.flow[0].max-queueing-time=1s",
            "weir.flow[0].max-queueing-count=-1"),
        bad("weir.degrade[0].strategy", "DegradeStrategy", "weir.degrade[0].resource=a",
            "weir.degrade[0].strategy=sometimes", "weir.degrade[0].threshold=0.5"),
        bad("weir.param-flow[0].count", "is required", "weir.param-flow[0].resource=a"),
        bad("weir.param-flow[0].burst", "applies to grade qps with control-behavior reject only",
            "weir.param-flow[0].resource=a", "weir.param-flow[0].count=10", "weir.param-flow[0].burst=5",
            "weir.param-flow[0].control-behavior=queue"),
        bad("weir.param-flow[0].exceptions[1].value", "listed twice", "weir.param-flow[0].resource=a",
            "weir.param-flow[0].count=10", "weir.param-flow[0].exceptions[0].value=vip",
            "weir.param-flow[0].exceptions[0].count=50", "weir.param-flow[0].exceptions[1].value=vip",
            "weir.param-flow[0].exceptions[1].count=60"),
        bad("weir.param-flow[0].key", "#nope is no argument of 'findOrder': its arguments are [customer, page]",
            "weir.param-flow[0].resource=findOrder", "weir.param-flow[0].count=1", "weir.param-flow[0].key=#nope"),
        bad("weir.param-flow[0].key", "#p2 is past the arguments of 'findOrder'",
            "weir.param-flow[0].resource=findOrder", "weir.param-flow[0].count=1", "weir.param-flow[0].key=#p2"),
        bad("weir.param-flow[0].key", "unexpected '(' at position 10 where a member's name was expected",
            "weir.param-flow[0].resource=findOrder",
            "weir.param-flow[0].count=1", "weir.param-flow[0].key=#customer.("),
        bad("weir.param-flow[0].key", "type references T(...) are not part of the key language",
            "weir.param-flow[0].resource=findOrder", "weir.param-flow[0].count=1",
            "weir.param-flow[0].key=T(java.lang.Runtime).getRuntime()"),
        bad("weir.param-flow[0].key", "constructors are not part of the key language",
            "weir.param-flow[0].resource=findOrder",
            "weir.param-flow[0].count=1", "weir.param-flow[0].key=new java.io.File(#customer)"),
        bad("weir.param-flow[0].param-index", "give param-index or key, not both",
            "weir.param-flow[0].resource=findOrder", "weir.param-flow[0].count=1", "weir.param-flow[0].key=#customer",
            "weir.param-flow[0].param-index=1"),
        bad("weir.param-flow[0].null-key", "NullKey", "weir.param-flow[0].resource=findOrder",
            "weir.param-flow[0].count=1", "weir.param-flow[0].null-key=sometimes"),
        bad("weir.web.routes[0].path", "is required", "weir.web.routes[0].resource=api"),
        bad("weir.web.routes[0].resource", "is required", "weir.web.routes[0].path=/api/**"),
        bad("weir.web.routes[0].methods[0]", "must be one of", "weir.web.routes[0].resource=api",
            "weir.web.routes[0].path=/api/**", "weir.web.routes[0].methods[0]=FETCH"),
        bad("weir.web.routes[0].permits", "must be at least 1", "weir.web.routes[0].resource=api",
            "weir.web.routes[0].path=/api/**", "weir.web.routes[0].permits=0"),
        bad("weir.authority[0].limit-app", "must list at least one origin", "weir.authority[0].resource=a",
            "weir.authority[0].strategy=white"),
        bad("weir.system.max-cpu-usage", "must be a fraction in (0, 1]", "weir.system.max-cpu-usage=1.5"),
        bad("weir.system.max-qps", "must be a number >= 0", "weir.system.max-qps=-5"),
        bad("weir.system.max-avg-rt", "must be a positive duration", "weir.system.max-avg-rt=0ms"),
        bad("weir.max-resources", "must be at least 1", "weir.max-resources=0"),
        bad("weir.statistics.sample-count", "divide 1000000000", "weir.statistics.sample-count=3"));
  }

  static Arguments bad(String path, String reason, String... properties) {
    return Arguments.of(path, reason, properties);
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource
  void badProperties(String path, String reason, String[] properties, CapturedOutput output) {
    assertThatThrownBy(() -> start(properties, App.class, BrokenBeans.ValidConfig.class))
        .isInstanceOf(Exception.class);
    String report = report(output);
    assertThat(report).contains(path).contains(reason);
  }

  static Stream<Arguments> badDeclarations() {
    return Stream.of(
        broken(BrokenBeans.MissingBlockHandlerConfig.class, "BrokenBeans$MissingBlockHandler.find(String)",
            "names blockHandler \"onBlock\"", "has no method of that name", "String onBlock(String, BlockException)"),
        broken(BrokenBeans.BlockHandlerWithoutExceptionConfig.class,
            "BrokenBeans$BlockHandlerWithoutException.find(String)", "String onBlock(String): takes (String)",
            "String onBlock(String, FlowException)"),
        broken(BrokenBeans.BlockHandlerWrongReturnConfig.class, "BrokenBeans$BlockHandlerWrongReturn.find(String)",
            "returns int, which is not assignable to String", "String onBlock(String, BlockException)"),
        broken(BrokenBeans.FallbackWrongParametersConfig.class, "BrokenBeans$FallbackWrongParameters.find(String)",
            "takes (long, Throwable)", "String fallback(String, Throwable)"),
        broken(BrokenBeans.DefaultFallbackWithArgumentsConfig.class,
            "BrokenBeans$DefaultFallbackWithArguments.find(String)", "names defaultFallback \"dflt\"",
            "String dflt()", "String dflt(Throwable)"),
        broken(BrokenBeans.NonStaticHandlerInOtherClassConfig.class,
            "BrokenBeans$NonStaticHandlerInOtherClass.find(String)", "is not static",
            "static String handle(String, BlockException)", "BrokenBeans$InstanceHandlers"),
        broken(BrokenBeans.UndeclaredCheckedExceptionConfig.class,
            "BrokenBeans$UndeclaredCheckedException.find(String)", "declares checked exception java.io.IOException"),
        broken(BrokenBeans.AmbiguousFallbacksConfig.class, "BrokenBeans$AmbiguousFallbacks.find(String)",
            "two methods of that name for the same exceptions"),
        broken(BrokenBeans.ValueOnTypeConfig.class, "BrokenBeans$ValueOnType", "sets value \"everything\""),
        broken(BrokenBeans.TwoHandlerClassesConfig.class, "BrokenBeans$TwoHandlerClasses.find(String)",
            "at most one is allowed"),
        broken(BrokenBeans.LazyBrokenConfig.class, "BrokenBeans$LazyBroken.find(String)",
            "names fallback \"missing\""),
        broken(BrokenBeans.FinalMethodConfig.class, "BrokenBeans$FinalMethod.find(String) cannot take effect:"
            + " the method is final, and the bean is proxied by a subclass (spring.aop.proxy-target-class=true,"
            + " Spring Boot's default), which cannot override a final method, so its calls would not be guarded.",
            "Remove final from the method"),
        broken(BrokenBeans.FinalClassConfig.class, "BrokenBeans$FinalClass.find(String) cannot take effect:"
            + " its class is final, and the bean is proxied by a subclass", "which cannot extend a final class",
            "Remove final from the class"),
        broken(BrokenBeans.StaticMethodConfig.class, "BrokenBeans$StaticMethod.find(String) cannot take effect:"
            + " the method is static, and a static method is never called through the bean's proxy",
            "Make it an instance method of the bean"));
  }

  static Arguments broken(Class<?> configuration, String... expected) {
    return Arguments.of(configuration.getSimpleName(), configuration, expected);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource
  void badDeclarations(String name, Class<?> configuration, String[] expected, CapturedOutput output) {
    assertThatThrownBy(() -> start(new String[0], App.class, configuration)).isInstanceOf(Exception.class);
    String report = report(output);
    assertThat(report).contains("dev.weir.spring.autoconfigure.").contains(expected);
  }

  private static void start(String[] properties, Class<?>... sources) {
    new SpringApplicationBuilder(sources).web(WebApplicationType.NONE)
        .properties("spring.main.banner-mode=off", "spring.config.name=none")
        .properties(properties).run().close();
  }

  /** Returns the failure report Spring Boot printed, from its description on. */
  private static String report(CapturedOutput output) {
    String all = output.getAll();
    assertThat(all).contains("APPLICATION FAILED TO START");
    return all.substring(all.indexOf("APPLICATION FAILED TO START"));
  }
}
