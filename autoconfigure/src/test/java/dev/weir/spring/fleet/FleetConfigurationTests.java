package dev.weir.spring.fleet;

import static dev.weir.spring.fleet.Fleet.get;
import static dev.weir.spring.fleet.Fleet.post;
import static dev.weir.spring.fleet.Fleet.sync;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.spring.test.RedisServer;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code weir.rules-store.*} checked at start, and the fleet's writes gated as every write of the
 * endpoint: closed unless {@code management.endpoint.weir.access=unrestricted}.
 */
class FleetConfigurationTests {

  private RedisServer redis;
  private final Fleet fleet = new Fleet();

  @BeforeEach
  void startRedis() {
    redis = RedisServer.start();
  }

  @AfterEach
  void stop() {
    fleet.close();
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void aHistoryOutOfRangeStopsTheStartNamingTheProperty() {
    for (String history : new String[] {"0", "1001", "-3"}) {
      assertThatThrownBy(() -> fleet.start(redis.port(), false, Map.of("weir.rules-store.history", history)))
          .rootCause().hasMessageContaining("weir.rules-store.history").hasMessageContaining("from 1 to 1000");
    }
  }

  @Test
  void theStoreWithoutClusterModeStopsTheStart() {
    assertThatThrownBy(() -> fleet.start(redis.port(), false, Map.of("weir.cluster.enabled", "false")))
        .rootCause().hasMessageContaining("weir.rules-store.enabled").hasMessageContaining("weir.cluster.enabled");
  }

  @Test
  void aMisspeltKeyStopsTheStart() {
    assertThatThrownBy(() -> fleet.start(redis.port(), false, Map.of("weir.rules-store.histroy", "5")))
        .rootCause().hasMessageContaining("weir.rules-store.histroy").hasMessageContaining("did you mean 'history'");
  }

  @Test
  void withWritesClosedTheFleetCanBeReadButNotWritten() {
    for (boolean reactive : new boolean[] {false, true}) {
      ConfigurableApplicationContext closed = fleet.start(redis.port(), reactive,
          Map.of("management.endpoint.weir.access", "read-only"));
      Fleet.await("it reaches the store", () -> sync(closed).reachable());
      assertThat(get(closed, "/actuator/weir/fleet").statusCode()).isEqualTo(200);
      assertThat(get(closed, "/actuator/weir/fleet/history").statusCode()).isEqualTo(200);
      assertThat(post(closed, "/actuator/weir/api", "{\"flow\": []}").statusCode()).isIn(404, 405);
      assertThat(post(closed, "/actuator/weir/fleet/rollback/1", "").statusCode()).isIn(404, 405);
      assertThat(redis.call("GET", "fleet:{rules}:version")).isNull();
    }
  }
}
