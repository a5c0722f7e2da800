package dev.weir.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import dev.weir.BlockException;
import dev.weir.spring.aop.RateLimitedDeclarationException;
import java.lang.reflect.Method;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.ReflectionHintsPredicates;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.javapoet.ClassName;
import org.springframework.util.ReflectionUtils;

/**
 * The {@code @RateLimited} bean processor on its own, as {@code aot.factories} registers it: the
 * hints it contributes for one bean, alone, so that what it leaves out is seen too (in an application
 * Spring's own hints for proxied classes overlap them).
 */
class RateLimitedAotProcessorTests {

  private static final ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();

  @Test
  void guardedMethodAndResolvedHandlersOnly() {
    RuntimeHints hints = contributed(HintedService.class);
    assertThat(hints).matches(invocable(HintedService.class, "order", String.class))
        .matches(invocable(HintedService.class, "refused", String.class, BlockException.class))
        .matches(invocable(OrderFallbacks.class, "orderFallback", String.class, Throwable.class))
        .matches(reflection.onType(HintedService.class)).matches(reflection.onType(OrderFallbacks.class));
    assertThat(hints).as("unguarded").matches(invocable(HintedService.class, "unguarded").negate())
        .as("rejected overload").matches(invocable(OrderFallbacks.class, "orderFallback", int.class).negate());
  }

  @Test
  void typeLevelAnnotationGuardsPublicMethodsIncludingInheritedOnes() {
    RuntimeHints hints = contributed(TypeLevelService.class);
    assertThat(hints).matches(invocable(TypeLevelService.class, "first"))
        .matches(invocable(TypeLevelService.class, "second", int.class))
        .matches(invocable(TypeLevelService.class, "down", Throwable.class))
        .matches(invocable(GuardedBase.class, "inherited"))
        .matches(invocable(GuardedBase.class, "baseDown"))
        .matches(reflection.onType(TypeLevelService.class)).matches(reflection.onType(GuardedBase.class));
    assertThat(hints).as("protected").matches(invocable(TypeLevelService.class, "notPublic").negate());
  }

  @Test
  void interfacesOfTheBeanAreIntrospectable() {
    RuntimeHints hints = contributed(InterfacedService.class);
    assertThat(hints).matches(invocable(InterfacedService.class, "busy", String.class, BlockException.class))
        .matches(reflection.onType(Orders.class));
  }

  @Test
  void classesTheLookupsWalkThroughAreIntrospectable() {
    RuntimeHints hints = contributed(LayeredService.class);
    assertThat(hints).matches(invocable(LayeredFallbacks.class, "later", Throwable.class))
        .matches(invocable(GuardedBase.class, "inherited"))
        .matches(reflection.onType(LayerBetween.class))
        .matches(reflection.onType(LayeredFallbacks.Sub.class));
  }

  @Test
  void classNamedOnTheTypeIsIntrospectable() {
    RuntimeHints hints = contributed(TypeLevelHolderService.class);
    assertThat(hints).matches(invocable(TypeLevelHolderService.class, "any"))
        .matches(invocable(LayeredFallbacks.class, "typeDown"))
        .matches(reflection.onType(LayeredFallbacks.Sub.class));
  }

  @Test
  void beansWithoutRateLimitedGetNothing() {
    assertThat(contribution(HintsTestApplication.class)).isNull();
  }

  @Test
  void invalidDeclarationFailsTheProcessingAsItWouldFailTheStart() {
    assertThatExceptionOfType(RateLimitedDeclarationException.class)
        .isThrownBy(() -> contribution(BrokenService.class))
        .withMessageContaining("names blockHandler \"missing\"")
        .withMessageContaining(BrokenService.class.getName());
  }

  private static RuntimeHints contributed(Class<?> beanClass) {
    BeanRegistrationAotContribution contribution = contribution(beanClass);
    assertThat(contribution).as("contribution for " + beanClass.getSimpleName()).isNotNull();
    DefaultGenerationContext generation = new DefaultGenerationContext(
        new ClassNameGenerator(ClassName.get("dev.weir.spring.aot.generated", "ProcessorTest")),
        new InMemoryGeneratedFiles());
    contribution.applyTo(generation, null); // contributes hints only, no registration code
    return generation.getRuntimeHints();
  }

  private static @Nullable BeanRegistrationAotContribution contribution(Class<?> beanClass) {
    DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
    beanFactory.registerBeanDefinition("bean", new RootBeanDefinition(beanClass));
    BeanRegistrationAotProcessor processor = AotServices.factories().load(BeanRegistrationAotProcessor.class)
        .stream().filter(candidate -> candidate.getClass().getName().equals("dev.weir.spring.aop.RateLimitedAotProcessor"))
        .findFirst().orElseThrow(() -> new AssertionError("RateLimitedAotProcessor is not in aot.factories"));
    return processor.processAheadOfTime(RegisteredBean.of(beanFactory, "bean"));
  }

  private static java.util.function.Predicate<RuntimeHints> invocable(Class<?> type, String name,
      Class<?>... parameters) {
    Method method = ReflectionUtils.findMethod(type, name, parameters);
    assertThat(method).as(type.getSimpleName() + "." + name).isNotNull();
    return reflection.onMethodInvocation(method);
  }
}
