package dev.weir.spring.autoconfigure.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.webmvc.WeirWebMvcAutoConfiguration;
import dev.weir.spring.reactive.ReactiveContext;
import dev.weir.spring.webflux.BlockWebExceptionHandler;
import dev.weir.spring.webflux.ProblemDetailReactiveBlockResponseFactory;
import dev.weir.spring.webflux.ReactiveBlockResponseFactory;
import dev.weir.spring.webflux.ReactiveOriginResolver;
import dev.weir.spring.webflux.WeirContextWebFilter;
import dev.weir.spring.webmvc.BlockExceptionResolver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.reactive.DispatcherHandler;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/** The WebFlux auto-configuration, in contexts built for each case. */
class WeirWebFluxAutoConfigurationTests {

  private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirWebFluxAutoConfiguration.class,
          WebFluxAutoConfiguration.class));

  /** Every auto-configuration Weir registers, read from its imports file. */
  private static Class<?>[] weirAutoConfigurations() {
    List<Class<?>> classes = new ArrayList<>();
    for (String name : ImportCandidates.load(AutoConfiguration.class, WeirWebFluxAutoConfigurationTests.class
        .getClassLoader())) {
      if (name.startsWith("dev.weir.")) {
        try {
          classes.add(Class.forName(name));
        } catch (ClassNotFoundException e) {
          throw new AssertionError(e);
        }
      }
    }
    assertThat(classes).contains(WeirWebFluxAutoConfiguration.class, WeirWebMvcAutoConfiguration.class);
    return classes.toArray(Class<?>[]::new);
  }

  private static MockServerWebExchange withHeader(String name, String value) {
    return MockServerWebExchange.from(MockServerHttpRequest.get("/").header(name, value));
  }

  @Test
  void installsTheHttpAnswersAndTheContextFilter() {
    runner.run(context -> {
      assertThat(context).hasSingleBean(BlockWebExceptionHandler.class).hasSingleBean(WeirContextWebFilter.class)
          .hasSingleBean(ReactiveOriginResolver.class);
      assertThat(context.getBean(ReactiveBlockResponseFactory.class))
          .isInstanceOf(ProblemDetailReactiveBlockResponseFactory.class);
      assertThat(context.getBean(WeirContextWebFilter.class).getOrder()).isEqualTo(WeirContextWebFilter.DEFAULT_ORDER);
    });
  }

  @Test
  void defaultOriginResolverReadsTheConfiguredHeaderTrimmed() {
    runner.withPropertyValues("weir.web.origin-header=X-Caller").run(context -> {
      ReactiveOriginResolver resolver = context.getBean(ReactiveOriginResolver.class);
      assertThat(resolver.resolveOrigin(withHeader("X-Caller", " partner ")).block()).isEqualTo("partner");
      assertThat(resolver.resolveOrigin(withHeader("X-Other", "partner")).blockOptional()).isEmpty();
    });
  }

  @Test
  void defaultOriginResolverGivesNoOriginWithoutHeaderSetting() {
    runner.run(context -> assertThat(context.getBean(ReactiveOriginResolver.class)
        .resolveOrigin(withHeader("X-Caller", "partner")).blockOptional()).isEmpty());
  }

  @Test
  void theFilterPutsTheWebContextInTheReactorContext() {
    runner.withPropertyValues("weir.web.origin-header=X-Caller").run(context -> {
      WeirContextWebFilter filter = context.getBean(WeirContextWebFilter.class);
      AtomicReference<ReactiveContext> seen = new AtomicReference<>();
      WebFilterChain handler = exchange -> Mono.deferContextual(reactor -> {
        seen.set(reactor.getOrDefault(ReactiveContext.class, null));
        return Mono.empty();
      });
      filter.filter(withHeader("X-Caller", "partner"), handler).block();
      assertThat(seen).hasValue(new ReactiveContext("weir_web_context", "partner"));
      filter.filter(MockServerWebExchange.from(MockServerHttpRequest.get("/")), handler).block();
      assertThat(seen).hasValue(new ReactiveContext("weir_web_context", ""));
    });
  }

  @Test
  void backsOffForTheApplicationsOriginResolverAndBlockResponse() {
    ReactiveOriginResolver origins = exchange -> Mono.just("fixed");
    ReactiveBlockResponseFactory responses = (exception, exchange) -> ResponseEntity.status(418).build();
    runner.withBean(ReactiveOriginResolver.class, () -> origins)
        .withBean(ReactiveBlockResponseFactory.class, () -> responses)
        .run(context -> {
          assertThat(context.getBean(ReactiveOriginResolver.class)).isSameAs(origins);
          assertThat(context.getBean(ReactiveBlockResponseFactory.class)).isSameAs(responses);
          assertThat(context).hasSingleBean(BlockWebExceptionHandler.class).hasSingleBean(WeirContextWebFilter.class);
        });
  }

  @Test
  void offWhenWeirIsDisabled() {
    runner.withPropertyValues("weir.enabled=false").run(context -> assertThat(context).hasNotFailed()
        .doesNotHaveBean(BlockWebExceptionHandler.class).doesNotHaveBean(ReactiveOriginResolver.class)
        .doesNotHaveBean(WeirContextWebFilter.class));
  }

  @Test
  void offWithoutWebFlux() {
    runner.withClassLoader(new FilteredClassLoader(DispatcherHandler.class)).run(context -> assertThat(context)
        .hasNotFailed().doesNotHaveBean(BlockWebExceptionHandler.class).doesNotHaveBean(WeirContextWebFilter.class));
  }

  @Test
  void offInAServletApplication() {
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirWebMvcAutoConfiguration.class,
            WeirWebFluxAutoConfiguration.class, WebMvcAutoConfiguration.class))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(BlockExceptionResolver.class)
            .doesNotHaveBean(BlockWebExceptionHandler.class).doesNotHaveBean(ReactiveOriginResolver.class));
  }

  @Test
  void weirStartsInASpringMvcApplicationWithoutWebFluxOrReactor() {
    new WebApplicationContextRunner()
        .withClassLoader(new FilteredClassLoader("reactor.", "org.springframework.web.reactive."))
        .withConfiguration(AutoConfigurations.of(weirAutoConfigurations()))
        .withConfiguration(AutoConfigurations.of(WebMvcAutoConfiguration.class))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Weir.class)
            .hasSingleBean(BlockExceptionResolver.class).hasBean("weirContextFilter")
            .doesNotHaveBean(BlockWebExceptionHandler.class).doesNotHaveBean(WeirContextWebFilter.class));
  }

  @Test
  void weirStartsInANonWebApplicationWithoutWebFluxOrReactor() {
    new ApplicationContextRunner()
        .withClassLoader(new FilteredClassLoader("reactor.", "org.springframework.web.reactive."))
        .withConfiguration(AutoConfigurations.of(weirAutoConfigurations()))
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(Weir.class)
            .doesNotHaveBean(BlockWebExceptionHandler.class).doesNotHaveBean(WeirContextWebFilter.class)
            .doesNotHaveBean(BlockExceptionResolver.class));
  }

  @Test
  void theFilteredClassLoaderReallyHidesReactor() {
    FilteredClassLoader loader = new FilteredClassLoader("reactor.", "org.springframework.web.reactive.");
    assertThat(org.springframework.util.ClassUtils.isPresent("reactor.core.publisher.Mono", loader)).isFalse();
    assertThat(org.springframework.util.ClassUtils.isPresent(DispatcherHandler.class.getName(), loader)).isFalse();
  }
}
