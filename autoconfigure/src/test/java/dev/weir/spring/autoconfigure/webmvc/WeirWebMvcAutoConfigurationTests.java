package dev.weir.spring.autoconfigure.webmvc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.webmvc.BlockExceptionResolver;
import dev.weir.spring.webmvc.BlockResponseFactory;
import dev.weir.spring.webmvc.OriginResolver;
import dev.weir.spring.webmvc.ProblemDetailBlockResponseFactory;
import dev.weir.spring.webmvc.WeirContextFilter;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.servlet.DispatcherServlet;

/** The Spring MVC auto-configuration, in contexts built for each case. */
class WeirWebMvcAutoConfigurationTests {

  private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirWebMvcAutoConfiguration.class,
          WebMvcAutoConfiguration.class));

  @Test
  void installsTheHttpAnswersAndTheContextFilter() {
    runner.run(context -> {
      assertThat(context).hasSingleBean(BlockExceptionResolver.class).hasSingleBean(OriginResolver.class)
          .hasBean("weirContextFilter");
      assertThat(context.getBean(BlockResponseFactory.class)).isInstanceOf(ProblemDetailBlockResponseFactory.class);
      FilterRegistrationBean<?> filter = context.getBean("weirContextFilter", FilterRegistrationBean.class);
      assertThat(filter.getFilter()).isInstanceOf(WeirContextFilter.class);
      assertThat(filter.getOrder()).isEqualTo(WeirContextFilter.DEFAULT_ORDER);
    });
  }

  @Test
  void defaultOriginResolverReadsTheConfiguredHeader() {
    runner.withPropertyValues("weir.web.origin-header=X-Caller").run(context -> {
      MockHttpServletRequest request = new MockHttpServletRequest();
      request.addHeader("X-Caller", " partner ");
      assertThat(context.getBean(OriginResolver.class).resolveOrigin(request)).isEqualTo("partner");
    });
  }

  @Test
  void defaultOriginResolverGivesNoOriginWithoutHeaderSetting() {
    runner.run(context -> {
      MockHttpServletRequest request = new MockHttpServletRequest();
      request.addHeader("X-Caller", "partner");
      assertThat(context.getBean(OriginResolver.class).resolveOrigin(request)).isNull();
    });
  }

  @Test
  void backsOffForTheApplicationsOriginResolverAndBlockResponse() {
    OriginResolver origins = request -> "fixed";
    BlockResponseFactory responses = (exception, request) -> ResponseEntity.status(418).build();
    runner.withBean(OriginResolver.class, () -> origins).withBean(BlockResponseFactory.class, () -> responses)
        .run(context -> {
          assertThat(context.getBean(OriginResolver.class)).isSameAs(origins);
          assertThat(context.getBean(BlockResponseFactory.class)).isSameAs(responses);
          assertThat(context).hasSingleBean(BlockExceptionResolver.class);
        });
  }

  @Test
  void offWhenWeirIsDisabled() {
    runner.withPropertyValues("weir.enabled=false").run(context -> assertThat(context)
        .doesNotHaveBean(BlockExceptionResolver.class).doesNotHaveBean(OriginResolver.class)
        .doesNotHaveBean("weirContextFilter"));
  }

  @Test
  void offWithoutSpringMvc() {
    runner.withClassLoader(new FilteredClassLoader(DispatcherServlet.class)).run(context -> assertThat(context)
        .hasNotFailed().doesNotHaveBean(BlockExceptionResolver.class).doesNotHaveBean("weirContextFilter"));
  }

  @Test
  void offInANonWebApplication() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class, WeirWebMvcAutoConfiguration.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(BlockExceptionResolver.class)
            .doesNotHaveBean(OriginResolver.class));
  }
}
