package dev.weir.spring.cluster;

import dev.weir.spring.test.RedisServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** Base of tests that each own a fresh {@code redis-server}, started before and killed after every test. */
abstract class WithRedisServer {

  /** This test's server: kill, pause, restart it at will. */
  RedisServer redis;

  @BeforeEach
  final void startRedis() {
    redis = RedisServer.start();
  }

  @AfterEach
  final void stopRedis() {
    if (redis != null) { // null when the test was skipped for want of redis-server
      redis.close();
    }
  }
}
