package dev.weir.spring.aot;

import dev.weir.spi.ProcessorSlot;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.util.ClassUtils;

/**
 * What a native image needs for the parts of Weir that are reached by reflection, method or
 * variable handles, the service loader or as classpath resources, whatever the application's beans:
 *
 * <ul>
 *   <li>custom slots ({@link ProcessorSlot}s named in {@code META-INF/services}): the engine looks
 *       up which of {@code entry}, {@code admitted}, {@code blocked} and {@code exit} each slot
 *       class declares, so their types are registered (which makes their methods introspectable),
 *       and the services file is kept. The built-in slots are not {@code ProcessorSlot}s and are
 *       reached by no reflection;
 *   <li>the field that the engine's per-call frames update through a {@code VarHandle};
 *   <li>the Lua script that cluster mode runs in Redis;
 *   <li>Spring's transaction state type, which Weir looks up by name to know whether spring-tx is
 *       there (a native image answers {@code Class.forName} only for registered types).
 * </ul>
 *
 * <p>The engine's classes are internal (not exported by its module) and are named here as strings ({@link #CALL}), so
 * that a test can check that each still exists.
 * Registered in {@code META-INF/spring/aot.factories}.
 */
final class WeirRuntimeHints implements RuntimeHintsRegistrar {

  private static final Log logger = LogFactory.getLog(WeirRuntimeHints.class);

  /** The engine's per-call state, and its field updated through a {@code VarHandle}. */
  static final String CALL = "dev.weir.internal.call.Call";
  static final String CALL_STATE_FIELD = "state";

  /** The file the engine's {@link java.util.ServiceLoader} reads custom slots from. */
  static final String SLOT_SERVICES = "META-INF/services/" + ProcessorSlot.class.getName();

  /** The script of cluster mode, read by {@code RedisClusterClient} next to its class. */
  static final String CLUSTER_SCRIPT = "dev/weir/spring/redis/sliding-window.lua";

  /** The scripts of cluster leases ({@code weir.cluster.lease}), next to {@code RedisClusterClient}. */
  static final String LEASE_SCRIPTS = "dev/weir/spring/redis/lease-*.lua";

  /**
   * Every Lua script of the Redis client ({@code RedisScript} loads them all when it initializes):
   * the decisions', {@code announce.lua}, {@code gcra.lua}, {@code settle.lua} ({@code Entry.settle}).
   */
  static final String REDIS_SCRIPTS = "dev/weir/spring/redis/*.lua";
  /** The scripts of the rules store ({@code weir.rules-store}), next to {@code RulesStore}. */
  static final String STORE_SCRIPTS = "dev/weir/spring/fleet/store-*.lua";

  /** The scripts of the fleet's traffic ({@code weir.rules-store}), next to {@code FleetTrafficRedis}. */
  static final String FLEET_TRAFFIC_SCRIPTS = "dev/weir/spring/fleet/traffic-*.lua";

  /** Looked up by name to tell whether spring-tx is present. */
  static final String TRANSACTION_STATE = "org.springframework.transaction.support.TransactionSynchronizationManager";

  @Override
  public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
    ReflectionHints reflection = hints.reflection();
    reflection.registerType(TypeReference.of(CALL), type -> type.withField(CALL_STATE_FIELD));
    hints.resources().registerPattern(SLOT_SERVICES);
    for (String name : serviceSlots(classLoader)) {
      registerServiceSlot(reflection, name, classLoader);
    }
    hints.resources().registerPattern(CLUSTER_SCRIPT);
    hints.resources().registerPattern(LEASE_SCRIPTS);
    hints.resources().registerPattern(REDIS_SCRIPTS);
    hints.resources().registerPattern(STORE_SCRIPTS);
    hints.resources().registerPattern(FLEET_TRAFFIC_SCRIPTS);
    reflection.registerTypeIfPresent(classLoader, TRANSACTION_STATE, type -> { });
  }

  /**
   * Registers a slot named in a services file: its constructor for the service loader, and its
   * class and superclasses up to {@link ProcessorSlot}, whose declared methods the slot chain
   * looks up.
   */
  private static void registerServiceSlot(ReflectionHints reflection, String name, @Nullable ClassLoader classLoader) {
    Class<?> slot;
    try {
      slot = ClassUtils.forName(name, classLoader);
    } catch (ClassNotFoundException | LinkageError e) {
      logger.warn("Slot " + name + " named in " + SLOT_SERVICES + " cannot be loaded, so it gets no native"
          + " image hints: " + e);
      return;
    }
    reflection.registerType(slot, MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS);
    for (Class<?> type = slot.getSuperclass(); type != null && type != ProcessorSlot.class
        && type != Object.class; type = type.getSuperclass()) {
      reflection.registerType(type);
    }
  }

  /** The class names in every {@link #SLOT_SERVICES} file visible to {@code classLoader}. */
  static Set<String> serviceSlots(@Nullable ClassLoader classLoader) {
    ClassLoader loader = classLoader != null ? classLoader : ClassUtils.getDefaultClassLoader();
    Set<String> names = new LinkedHashSet<>();
    if (loader == null) {
      return names;
    }
    try {
      Enumeration<URL> files = loader.getResources(SLOT_SERVICES);
      while (files.hasMoreElements()) {
        URL file = files.nextElement();
        try (InputStream in = file.openStream();
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
          for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            int comment = line.indexOf('#');
            String name = (comment >= 0 ? line.substring(0, comment) : line).strip();
            if (!name.isEmpty()) {
              names.add(name);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + SLOT_SERVICES, e);
    }
    return names;
  }
}
