package dev.weir.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.rule.RuleViolation;
import dev.weir.spi.ProcessorSlot;
import dev.weir.spring.actuate.WeirEndpoint;
import dev.weir.spring.actuate.WeirEndpointWebExtension;
import dev.weir.spring.properties.WeirProperties;
import dev.weir.spring.redis.RedisClusterClient;
import java.beans.PropertyDescriptor;
import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.ReflectionHintsPredicates;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.aop.SpringProxy;
import org.springframework.aop.framework.Advised;
import org.springframework.beans.BeanUtils;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.core.DecoratingProxy;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.util.ReflectionUtils;

/**
 * The runtime hints of a whole application as Spring's ahead-of-time processing collects them
 * (see {@link AotProcessing}): what Weir registers, and what Spring Boot registers for Weir's
 * properties and endpoint, cover everything Weir reaches reflectively at run time. No native image
 * is built: these check the hints only.
 */
class NativeHintsTests {

  private static final ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();

  private static RuntimeHints cglib;
  private static RuntimeHints jdk;

  @BeforeAll
  static void processAheadOfTime() {
    cglib = AotProcessing.hintsOf(HintsTestApplication.class);
    jdk = AotProcessing.hintsOf(JdkProxyApplication.class, "spring.aop.proxy-target-class=false");
  }

  @Test
  void guardedMethodAndItsHandlersAreInvocable() throws Exception {
    assertThat(cglib).matches(invocable(HintedService.class.getMethod("order", String.class)))
        .matches(invocable(method(HintedService.class, "refused", String.class, dev.weir.BlockException.class)))
        .matches(invocable(method(OrderFallbacks.class, "orderFallback", String.class, Throwable.class)));
  }

  @Test
  void inheritedGuardedMethodAndTypeLevelDefaultFallbacksAreInvocable() throws Exception {
    assertThat(cglib).matches(invocable(GuardedBase.class.getMethod("inherited")))
        .matches(invocable(method(GuardedBase.class, "baseDown")))
        .matches(invocable(TypeLevelService.class.getMethod("first")))
        .matches(invocable(method(TypeLevelService.class, "down", Throwable.class)));
  }

  @Test
  void behindJdkProxiesThePrivateBlockHandlerIsInvocableToo() throws Exception {
    assertThat(jdk).matches(invocable(InterfacedService.class.getMethod("place", String.class)))
        .matches(invocable(method(InterfacedService.class, "busy", String.class, dev.weir.BlockException.class)))
        .as("Spring's proxy hint").matches(RuntimeHintsPredicates.proxies().forInterfaces(Orders.class,
            SpringProxy.class, Advised.class, DecoratingProxy.class));
  }

  /** Spring's hints for spring.factories: the analyzers that explain Weir's start failures. */
  @Test
  void failureAnalyzersAreInstantiable() throws Exception {
    List<String> analyzers = SpringFactoriesLoader.loadFactoryNames(FailureAnalyzer.class,
        getClass().getClassLoader()).stream().filter(name -> name.startsWith("dev.weir.")).toList();
    assertThat(analyzers).hasSize(3);
    for (String analyzer : analyzers) {
      for (var constructor : Class.forName(analyzer).getDeclaredConstructors()) {
        assertThat(cglib).as(analyzer).matches(reflection.onConstructorInvocation(constructor));
      }
    }
  }

  @Test
  void callStateIsAccessibleForItsVarHandle() throws Exception {
    assertThat(cglib).matches(reflection.onFieldAccess(WeirRuntimeHints.CALL, WeirRuntimeHints.CALL_STATE_FIELD));
  }

  @Test
  void slotServicesFileAndClusterScriptAreIncluded() {
    String services = "META-INF/services/" + ProcessorSlot.class.getName();
    String script = new ClassPathResource("sliding-window.lua", RedisClusterClient.class).getPath();
    assertThat(cglib).matches(RuntimeHintsPredicates.resource().forResource(services))
        .matches(RuntimeHintsPredicates.resource().forResource(script));
  }

  @Test
  void transactionStateCanBeFoundByName() {
    assertThat(cglib).matches(reflection.onType(TypeReference.of(WeirRuntimeHints.TRANSACTION_STATE)));
  }

  /** Spring Boot's hints for @ConfigurationProperties reach every type bound under weir.*. */
  @Test
  void everyPropertyTypeCanBeBound() {
    Map<String, Class<?>> bound = boundTypes(WeirProperties.class);
    assertThat(bound).containsKeys("", "statistics", "flow", "degrade", "paramFlow", "paramFlow.exceptions",
        "authority", "system", "web", "cluster", "metrics");
    bound.forEach((path, type) -> {
      assertThat(cglib).as(path).matches(reflection.onConstructorInvocation(constructor(type)));
      for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(type)) {
        for (Method accessor : new Method[] {property.getReadMethod(), property.getWriteMethod()}) {
          if (accessor != null && accessor.getDeclaringClass() != Object.class) {
            assertThat(cglib).as(path + "." + property.getName()).matches(invocable(accessor));
          }
        }
      }
    });
  }

  /** The actuator's hints cover the operations and their declared answers; Weir's the refused answer. */
  @Test
  void endpointOperationsAndAnswersAreCovered() throws Exception {
    assertThat(cglib).matches(reflection.onMethodInvocation(WeirEndpoint.class, "weir"))
        .matches(reflection.onMethodInvocation(WeirEndpoint.class, "resource"))
        .matches(reflection.onMethodInvocation(WeirEndpoint.class, "replaceRules"))
        .matches(reflection.onMethodInvocation(WeirEndpointWebExtension.class, "replaceRules"));
    for (Class<?> record : List.of(WeirEndpoint.WeirDescriptor.class, WeirEndpoint.ResourceDescriptor.class,
        WeirEndpoint.RulesDescriptor.class, WeirEndpoint.InvalidRulesDescriptor.class, RuleViolation.class)) {
      for (var component : record.getRecordComponents()) {
        assertThat(cglib).as(record.getSimpleName() + "." + component.getName())
            .matches(invocable(component.getAccessor()));
      }
    }
  }

  private static Predicate<RuntimeHints> invocable(Method method) {
    return reflection.onMethodInvocation(method);
  }

  private static Method method(Class<?> type, String name, Class<?>... parameters) {
    Method method = ReflectionUtils.findMethod(type, name, parameters);
    assertThat(method).as(type.getSimpleName() + "." + name).isNotNull();
    return method;
  }

  private static java.lang.reflect.Constructor<?> constructor(Class<?> type) {
    try {
      return type.getDeclaredConstructor();
    } catch (NoSuchMethodException e) {
      throw new AssertionError(type + " has no no-argument constructor", e);
    }
  }

  /** The bean types under {@code root} by property path: its nested types and list element types. */
  private static Map<String, Class<?>> boundTypes(Class<?> root) {
    Map<String, Class<?>> found = new LinkedHashMap<>();
    Deque<Map.Entry<String, Class<?>>> todo = new ArrayDeque<>();
    todo.add(Map.entry("", root));
    while (!todo.isEmpty()) {
      Map.Entry<String, Class<?>> next = todo.pop();
      if (found.containsValue(next.getValue())) {
        continue;
      }
      found.put(next.getKey(), next.getValue());
      for (PropertyDescriptor property : BeanUtils.getPropertyDescriptors(next.getValue())) {
        if (property.getReadMethod() == null || property.getName().equals("class")) {
          continue;
        }
        ResolvableType type = ResolvableType.forMethodReturnType(property.getReadMethod());
        Class<?> bound = type.asCollection() != ResolvableType.NONE ? type.asCollection().resolveGeneric(0)
            : type.resolve();
        if (bound != null && bound.getName().startsWith("dev.weir.") && !bound.isEnum()
            && !bound.isInterface() && !bound.isRecord()) {
          String path = next.getKey().isEmpty() ? property.getName() : next.getKey() + "." + property.getName();
          todo.add(Map.entry(path, bound));
        }
      }
    }
    return found;
  }
}
