package dev.weir.spring.cluster;

import dev.weir.spring.test.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Base of tests that share one {@code redis-server} for the whole class (each test keeps its own
 * keys, by a key prefix of its own), started before the first test and killed after the last; and
 * of the instances of the application each test starts against it, closed after each test.
 * {@link WithRedisServer} is the base of tests that need a server of their own to kill or pause.
 */
abstract class WithSharedRedisServer {

  /** The class's server; null until it starts (and when the class was skipped for want of one). */
  static RedisServer redis;

  final List<ConfigurableApplicationContext> instances = new ArrayList<>();

  @BeforeAll
  static void startSharedRedis() {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopSharedRedis() {
    if (redis != null) {
      redis.close();
      redis = null;
    }
  }

  @AfterEach
  final void closeInstances() {
    instances.forEach(ConfigurableApplicationContext::close);
    instances.clear();
  }

  /**
   * Starts an instance of {@code application}, not a web application, with cluster mode on against
   * the class's server under {@code keyPrefix}, and {@code properties} besides; returns it once its
   * Redis client has connected ({@link ClusterFaults#awaitConnected}).
   */
  ConfigurableApplicationContext instance(Class<?> application, String keyPrefix, Map<String, String> properties) {
    Map<String, Object> all = new LinkedHashMap<>();
    all.put("spring.main.banner-mode", "off");
    all.put("spring.data.redis.host", redis.host());
    all.put("spring.data.redis.port", Integer.toString(redis.port()));
    all.put("weir.cluster.enabled", "true");
    all.put("weir.cluster.key-prefix", keyPrefix);
    all.putAll(properties);
    ConfigurableApplicationContext context = new SpringApplicationBuilder(application).web(WebApplicationType.NONE)
        .properties(all).run();
    instances.add(context);
    ClusterFaults.awaitConnected(context);
    return context;
  }

  /** The text of one of the cluster client's Lua scripts, {@code gcra.lua} for example. */
  static String luaScript(String file) {
    try (InputStream in = Objects.requireNonNull(
        WithSharedRedisServer.class.getResourceAsStream("/dev/weir/spring/redis/" + file), file)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }
}
