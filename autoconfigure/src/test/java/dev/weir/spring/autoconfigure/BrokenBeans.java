package dev.weir.spring.autoconfigure;

import dev.weir.BlockException;
import dev.weir.FlowException;
import dev.weir.annotation.RateLimited;
import java.io.IOException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;

/** Beans whose {@code @RateLimited} declarations cannot be honoured, one configuration each. */
final class BrokenBeans {

  private BrokenBeans() {
  }

  static class MissingBlockHandler {
    @RateLimited(blockHandler = "onBlock")
    public String find(String id) {
      return id;
    }
  }

  static class BlockHandlerWithoutException {
    @RateLimited(blockHandler = "onBlock")
    public String find(String id) {
      return id;
    }

    String onBlock(String id) {
      return id;
    }
  }

  static class BlockHandlerWrongReturn {
    @RateLimited(blockHandler = "onBlock")
    public String find(String id) {
      return id;
    }

    int onBlock(String id, FlowException e) {
      return 0;
    }
  }

  static class FallbackWrongParameters {
    @RateLimited(fallback = "fallback")
    public String find(String id) {
      return id;
    }

    String fallback(long id, Throwable t) {
      return "";
    }
  }

  static class DefaultFallbackWithArguments {
    @RateLimited(defaultFallback = "dflt")
    public String find(String id) {
      return id;
    }

    String dflt(String id) {
      return id;
    }
  }

  static class NonStaticHandlerInOtherClass {
    @RateLimited(blockHandler = "handle", blockHandlerClass = InstanceHandlers.class)
    public String find(String id) {
      return id;
    }
  }

  static class InstanceHandlers {
    String handle(String id, BlockException e) {
      return id;
    }
  }

  static class UndeclaredCheckedException {
    @RateLimited(fallback = "fallback")
    public String find(String id) {
      return id;
    }

    String fallback(String id, Throwable t) throws IOException {
      throw new IOException("no");
    }
  }

  static class AmbiguousFallbacks {
    @RateLimited(fallback = "fallback")
    public String find(String id) {
      return id;
    }

    String fallback(String id) {
      return id;
    }

    String fallback(String id, Throwable t) {
      return id;
    }
  }

  @RateLimited("everything")
  static class ValueOnType {
    public String find(String id) {
      return id;
    }
  }

  static class TwoHandlerClasses {
    @RateLimited(blockHandler = "handle", blockHandlerClass = {InstanceHandlers.class, String.class})
    public String find(String id) {
      return id;
    }
  }

  static class LazyBroken {
    @RateLimited(fallback = "missing")
    public String find(String id) {
      return id;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class MissingBlockHandlerConfig {
    @Bean
    MissingBlockHandler bean() {
      return new MissingBlockHandler();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class BlockHandlerWithoutExceptionConfig {
    @Bean
    BlockHandlerWithoutException bean() {
      return new BlockHandlerWithoutException();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class BlockHandlerWrongReturnConfig {
    @Bean
    BlockHandlerWrongReturn bean() {
      return new BlockHandlerWrongReturn();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class FallbackWrongParametersConfig {
    @Bean
    FallbackWrongParameters bean() {
      return new FallbackWrongParameters();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class DefaultFallbackWithArgumentsConfig {
    @Bean
    DefaultFallbackWithArguments bean() {
      return new DefaultFallbackWithArguments();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class NonStaticHandlerInOtherClassConfig {
    @Bean
    NonStaticHandlerInOtherClass bean() {
      return new NonStaticHandlerInOtherClass();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class UndeclaredCheckedExceptionConfig {
    @Bean
    UndeclaredCheckedException bean() {
      return new UndeclaredCheckedException();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class AmbiguousFallbacksConfig {
    @Bean
    AmbiguousFallbacks bean() {
      return new AmbiguousFallbacks();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class ValueOnTypeConfig {
    @Bean
    ValueOnType bean() {
      return new ValueOnType();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class TwoHandlerClassesConfig {
    @Bean
    TwoHandlerClasses bean() {
      return new TwoHandlerClasses();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class LazyBrokenConfig {
    @Bean
    @Lazy
    LazyBroken bean() {
      return new LazyBroken();
    }
  }

  /** A valid bean, so that rules may name its resource. */
  static class Valid {
    @RateLimited("createOrder")
    public String create() {
      return "created";
    }

    @RateLimited("findOrder")
    public String find(String customer, int page) {
      return customer + page;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class ValidConfig {
    @Bean
    Valid bean() {
      return new Valid();
    }
  }

  /** A final guarded method: a subclass (CGLIB) proxy cannot override it. */
  static class FinalMethod {
    @RateLimited("final-method")
    public final String find(String id) {
      return id;
    }
  }

  /** A guarded method of a final class: a subclass (CGLIB) proxy cannot extend it. */
  static final class FinalClass {
    @RateLimited("final-class")
    public String find(String id) {
      return id;
    }
  }

  /** A static guarded method: never called through a proxy. */
  static class StaticMethod {
    @RateLimited("static-method")
    public static String find(String id) {
      return id;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class FinalMethodConfig {
    @Bean
    FinalMethod bean() {
      return new FinalMethod();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class FinalClassConfig {
    @Bean
    FinalClass bean() {
      return new FinalClass();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class StaticMethodConfig {
    @Bean
    StaticMethod bean() {
      return new StaticMethod();
    }
  }
}
