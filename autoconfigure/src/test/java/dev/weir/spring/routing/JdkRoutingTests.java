package dev.weir.spring.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.test.context.SpringBootTest;

/** The routing cases through interface-based (JDK dynamic) proxies. */
@SpringBootTest(classes = RoutingTestApplication.class,
    properties = {"spring.config.name=routing-test", "spring.aop.proxy-target-class=false"})
class JdkRoutingTests extends RoutingTests {

  @Override
  void assertProxyKind(Object bean) {
    assertThat(AopUtils.isJdkDynamicProxy(bean)).as("JDK proxy: %s", bean.getClass()).isTrue();
  }
}
