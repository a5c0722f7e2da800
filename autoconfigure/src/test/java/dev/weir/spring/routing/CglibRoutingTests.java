package dev.weir.spring.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.SpringBootTest;

/** The routing cases through class-based (CGLIB) proxies, Spring Boot's default. */
@SpringBootTest(classes = RoutingTestApplication.class, properties = "spring.config.name=routing-test")
class CglibRoutingTests extends RoutingTests {

  @Override
  void assertProxyKind(Object bean) {
    assertThat(AopUtils.isCglibProxy(bean)).as("CGLIB proxy: %s", bean.getClass()).isTrue();
  }
}
