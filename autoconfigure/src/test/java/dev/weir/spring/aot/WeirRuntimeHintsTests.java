package dev.weir.spring.aot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spi.ProcessorSlot;
import dev.weir.spring.fleet.RulesStore;
import dev.weir.spring.redis.RedisClusterClient;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URL;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.ReflectionHintsPredicates;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.context.annotation.ClassPathScanningCandidateComponentProvider;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.type.filter.AssignableTypeFilter;

/**
 * The names {@link WeirRuntimeHints} registers by string still name what the engine and the
 * cluster client use, and service-loaded slots get their hints. A rename in the engine fails here
 * rather than dropping a hint silently.
 */
class WeirRuntimeHintsTests {

  private static final ReflectionHintsPredicates reflection = RuntimeHintsPredicates.reflection();

  /**
   * The engine reflects on {@link ProcessorSlot} classes only (to see which phases they override),
   * and its built-in slots are not such classes: were one added to the engine, it would need a hint.
   */
  @Test
  void theEngineHasNoProcessorSlotOfItsOwnToHint() {
    ClassPathScanningCandidateComponentProvider scanner = new ClassPathScanningCandidateComponentProvider(false) {
      @Override
      protected boolean isCandidateComponent(
          org.springframework.beans.factory.annotation.AnnotatedBeanDefinition definition) {
        return definition.getMetadata().isConcrete();
      }
    };
    scanner.addIncludeFilter(new AssignableTypeFilter(ProcessorSlot.class));
    Set<String> slots = new TreeSet<>();
    for (BeanDefinition found : scanner.findCandidateComponents("dev.weir")) {
      String name = Objects.requireNonNull(found.getBeanClassName());
      if (name.lastIndexOf('.') == "dev.weir".length()) { // the engine's package, not its subpackages
        slots.add(name);
      }
    }
    assertThat(slots).isEmpty();
  }

  @Test
  void callHasTheVarHandleField() throws Exception {
    Field state = Class.forName(WeirRuntimeHints.CALL).getDeclaredField(WeirRuntimeHints.CALL_STATE_FIELD);
    assertThat(state.getType()).isEqualTo(long.class);
    assertThat(Modifier.isVolatile(state.getModifiers())).isTrue();
  }

  @Test
  void clusterScriptIsWhereTheClientReadsIt() {
    ClassPathResource read = new ClassPathResource("sliding-window.lua", RedisClusterClient.class);
    assertThat(read.exists()).isTrue();
    assertThat(read.getPath()).isEqualTo(WeirRuntimeHints.CLUSTER_SCRIPT);
  }

  @Test
  void theRulesStoreScriptsMatchTheirPattern() {
    RuntimeHints hints = new RuntimeHints();
    new WeirRuntimeHints().registerHints(hints, getClass().getClassLoader());
    for (String script : List.of("store-write.lua", "store-heartbeat.lua", "store-instances.lua", "store-history.lua")) {
      ClassPathResource read = new ClassPathResource(script, RulesStore.class);
      assertThat(read.exists()).as(script).isTrue();
      assertThat(RuntimeHintsPredicates.resource().forResource(read.getPath()))
          .as(read.getPath()).accepts(hints);
    }
  }

  @Test
  void transactionStateTypeExists() throws Exception {
    assertThat(Class.forName(WeirRuntimeHints.TRANSACTION_STATE)).isNotNull();
  }

  @Test
  void registrarsAreInAotFactories() {
    List<RuntimeHintsRegistrar> registrars = AotServices.factories().load(RuntimeHintsRegistrar.class).asList();
    assertThat(registrars).hasAtLeastOneElementOfType(WeirRuntimeHints.class)
        .hasAtLeastOneElementOfType(WeirEndpointRuntimeHints.class);
  }

  @Test
  void serviceLoadedSlotsAreInstantiableAndIntrospectable() throws Exception {
    URL services = Objects.requireNonNull(getClass().getResource("slot-services.txt"));
    ClassLoader loader = new ClassLoader(getClass().getClassLoader()) {
      @Override
      public Enumeration<URL> getResources(String name) throws IOException {
        return name.equals(WeirRuntimeHints.SLOT_SERVICES) ? Collections.enumeration(List.of(services))
            : super.getResources(name);
      }
    };
    assertThat(WeirRuntimeHints.serviceSlots(loader))
        .containsExactly("dev.weir.spring.aot.ServiceSlot", "dev.weir.spring.aot.NoSuchSlot");
    RuntimeHints hints = new RuntimeHints();
    new WeirRuntimeHints().registerHints(hints, loader);
    assertThat(hints).matches(reflection.onConstructorInvocation(ServiceSlot.class.getConstructor()))
        .matches(reflection.onType(ServiceSlot.class))
        .matches(reflection.onType(ServiceSlotBase.class))
        .matches(reflection.onType(ProcessorSlot.class).negate())
        .matches(reflection.onType(TypeReference.of("dev.weir.spring.aot.NoSuchSlot")).negate());
  }
}
