package dev.weir.spring.fleet;

import static dev.weir.spring.fleet.Fleet.API;
import static dev.weir.spring.fleet.Fleet.flowCount;
import static dev.weir.spring.fleet.Fleet.get;
import static dev.weir.spring.fleet.Fleet.json;
import static dev.weir.spring.fleet.Fleet.post;
import static dev.weir.spring.fleet.Fleet.sync;
import static dev.weir.spring.fleet.Fleet.writeFlow;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.spring.test.RedisServer;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A fleet of three instances (two on Spring MVC, one on WebFlux) on one real {@code redis-server}:
 * writes through any instance's endpoint become versions every instance applies, with optimistic
 * concurrency, refusals that publish nothing, history and rollback, the fleet view, meters and
 * health. Each test writes resources of its own; versions are shared, so tests compare them
 * relatively.
 */
@ExtendWith(OutputCaptureExtension.class)
class FleetStoreTests {

  private static RedisServer redis;
  private static Fleet fleet;
  private static ConfigurableApplicationContext mvc;
  private static ConfigurableApplicationContext mvc2;
  private static ConfigurableApplicationContext flux;

  @BeforeAll
  static void startFleet() {
    redis = RedisServer.start();
    fleet = new Fleet();
    mvc = fleet.start(redis.port(), false, Map.of("fleet-test.traffic", "true"));
    mvc2 = fleet.start(redis.port(), false);
    flux = fleet.start(redis.port(), true);
    Fleet.await("every instance reaches the store", () -> fleet.instances.stream()
        .allMatch(context -> sync(context).reachable()));
  }

  @AfterAll
  static void stopFleet() {
    if (fleet != null) {
      fleet.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  private static long storeVersion() {
    Object version = redis.call("GET", "fleet:{rules}:version");
    return version == null ? 0 : Long.parseLong(version.toString());
  }

  /**
   * One write, applied by all: measured from the request to the last instance applying it, over
   * 100 writes through the three instances in turn. The p99 is printed for the documentation; the
   * only bound asserted is the documented second, with generous slack for a shared machine.
   */
  @Test
  void everyWriteIsAppliedByEveryInstanceAndTheLatencyIsMeasured() {
    List<Long> nanos = new ArrayList<>();
    List<ConfigurableApplicationContext> writers = List.of(mvc, mvc2, flux);
    for (int i = 0; i < 100; i++) {
      ConfigurableApplicationContext writer = writers.get(i % 3);
      long start = System.nanoTime();
      long version = writeFlow(writer, "latency", 1000 + i);
      fleet.awaitAll(version);
      nanos.add(System.nanoTime() - start);
      for (ConfigurableApplicationContext instance : fleet.instances) {
        assertThat(flowCount(instance, "latency")).isEqualTo(1000 + i);
      }
    }
    for (ConfigurableApplicationContext instance : fleet.instances) {
      assertThat(sync(instance).messages()).as("messages on the channel: pub/sub delivers, the poll confirms")
          .isPositive();
    }
    Collections.sort(nanos);
    long p50 = nanos.get(49) / 1_000_000;
    long p99 = nanos.get(98) / 1_000_000;
    long max = nanos.get(99) / 1_000_000;
    System.out.println("FLEET LATENCY write -> last of 3 instances applied, 100 writes: p50 " + p50 + " ms, p99 "
        + p99 + " ms, max " + max + " ms");
    assertThat(p99).as("p99 write -> applied everywhere, ms (documented: within 1 s; slack for a shared machine)")
        .isLessThan(3000);
  }

  @Test
  void aWriteBasedOnAVersionNoLongerCurrentIs409AndChangesNothing() {
    for (ConfigurableApplicationContext writer : List.of(mvc, flux)) {
      long version = writeFlow(writer, "stale", 5);
      long newer = writeFlow(mvc2, "stale", 6);
      HttpResponse<String> stale = post(writer, "/actuator/weir/stale", "{\"flow\": [{\"count\": 7}]}",
          "If-Match", "\"" + version + "\"");
      assertThat(stale.statusCode()).as(stale.body()).isEqualTo(409);
      assertThat(json(stale)).containsEntry("version", (int) newer);
      assertThat(storeVersion()).isEqualTo(newer);
      HttpResponse<String> current = post(writer, "/actuator/weir/stale", "{\"flow\": [{\"count\": 8}]}",
          "If-Match", "\"" + newer + "\"");
      assertThat(current.statusCode()).as(current.body()).isEqualTo(200);
      assertThat(((Number) json(current).get("version")).longValue()).isEqualTo(newer + 1);
      fleet.awaitAll(newer + 1);
      assertThat(flowCount(mvc2, "stale")).isEqualTo(8);
    }
    HttpResponse<String> bad = post(mvc, "/actuator/weir/stale", "{\"flow\": []}", "If-Match", "soon");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("If-Match");
  }

  /** Two writers on two instances, both based on the same version, released together: exactly one wins. */
  @Test
  void twoWritersRacingOnOneVersionExactlyOneWins() throws Exception {
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 20; round++) {
        long version = writeFlow(mvc, "race", 1);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<HttpResponse<String>>> answers = new ArrayList<>();
        for (ConfigurableApplicationContext writer : List.of(mvc2, flux)) {
          int count = writer == flux ? 3 : 2;
          answers.add(threads.submit(() -> {
            go.await();
            return post(writer, "/actuator/weir/race", "{\"flow\": [{\"count\": " + count + "}]}",
                "If-Match", "\"" + version + "\"");
          }));
        }
        go.countDown();
        List<Integer> statuses = new ArrayList<>();
        for (Future<HttpResponse<String>> answer : answers) {
          statuses.add(answer.get().statusCode());
        }
        assertThat(statuses).as("round " + round).containsExactlyInAnyOrder(200, 409);
        assertThat(storeVersion()).isEqualTo(version + 1);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  /** Each version written is recorded with source {@code store}, its author, its version and what changed. */
  @Test
  void aWriteIsRecordedWithItsAuthorVersionAndChange(CapturedOutput output) {
    long version = writeFlow(flux, "audited", 21);
    Fleet.await("the write is logged", () -> output.getAll().contains("version " + version + ": audited: flow"));
    assertThat(output.getAll()).containsPattern("Rules of 'audited' replaced \\(source: store, principal: anonymous,"
        + " kinds: flow\\): version " + version + ": audited: flow - -> \\[\\{count=21");
    // and each instance records what changed in force when it applies the version
    fleet.awaitAll(version);
    assertThat(output.getAll()).contains("source: store v" + version);
  }

  /**
   * Writes without If-Match, racing on two instances for different resources: a write that loses
   * the version to the other is made again on the newer document, so no write is lost and each
   * takes exactly one version.
   */
  @Test
  void writesRacingWithoutIfMatchAreAllKept() throws Exception {
    long start = storeVersion();
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<List<Long>>> versions = new ArrayList<>();
      for (ConfigurableApplicationContext writer : List.of(mvc, flux)) {
        String resource = writer == mvc ? "merged-a" : "merged-b";
        versions.add(threads.submit(() -> {
          go.await();
          List<Long> written = new ArrayList<>();
          for (int i = 1; i <= 20; i++) {
            written.add(writeFlow(writer, resource, i));
          }
          return written;
        }));
      }
      go.countDown();
      List<Long> all = new ArrayList<>(versions.get(0).get());
      all.addAll(versions.get(1).get());
      assertThat(all).as("one version each").doesNotHaveDuplicates().hasSize(40);
      assertThat(storeVersion()).isEqualTo(start + 40);
    } finally {
      threads.shutdownNow();
    }
    fleet.awaitAll(start + 40);
    for (ConfigurableApplicationContext instance : fleet.instances) {
      assertThat(flowCount(instance, "merged-a")).isEqualTo(20);
      assertThat(flowCount(instance, "merged-b")).isEqualTo(20);
    }
  }

  @Test
  void anInvalidWriteIs400AndPublishesNothing() {
    long before = writeFlow(mvc, "invalid", 3);
    Object history = redis.call("LRANGE", "fleet:{rules}:history", "0", "-1");
    for (ConfigurableApplicationContext writer : List.of(mvc, flux)) {
      HttpResponse<String> refused = post(writer, "/actuator/weir/invalid", "{\"flow\": [{\"count\": -1}]}");
      assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
      assertThat(refused.body()).contains("flow[0].count");
      HttpResponse<String> unknown = post(writer, "/actuator/weir/invalid", "{\"flwo\": []}");
      assertThat(unknown.statusCode()).isEqualTo(400);
    }
    assertThat(storeVersion()).isEqualTo(before);
    assertThat(redis.call("LRANGE", "fleet:{rules}:history", "0", "-1")).isEqualTo(history);
    assertThat(flowCount(mvc2, "invalid")).isEqualTo(3);
  }

  @Test
  @SuppressWarnings("unchecked")
  void theHistoryIsNewestFirstAndARollbackIsANewVersion() {
    long trimmed = writeFlow(mvc, "history", 5);
    writeFlow(mvc, "history", 10);
    long kept = writeFlow(mvc, "history", 20);
    long first = writeFlow(mvc, "history", 1);
    long second = writeFlow(mvc2, "history", 2);
    long third = writeFlow(flux, "history", 3);
    HttpResponse<String> read = get(mvc, "/actuator/weir/fleet/history");
    assertThat(read.statusCode()).as(read.body()).isEqualTo(200);
    assertThat(json(read)).containsEntry("version", (int) third);
    List<Map<String, Object>> history = (List<Map<String, Object>>) json(read).get("history");
    assertThat(history).as("weir.rules-store.history: 5").hasSize(5);
    assertThat(((Number) history.get(4).get("version")).longValue()).isEqualTo(kept - 1);
    assertThat(redis.call("EXISTS", "fleet:{rules}:v:" + trimmed, "fleet:{rules}:s:" + trimmed))
        .as("the document and summary of a version no longer kept are deleted").isEqualTo(0L);
    assertThat(post(mvc, "/actuator/weir/fleet/rollback/" + trimmed, "").statusCode()).isEqualTo(404);
    assertThat(history.subList(0, 3)).extracting(entry -> ((Number) entry.get("version")).longValue())
        .containsExactly(third, second, first);
    assertThat(history.get(0)).containsEntry("updatedBy", "anonymous");
    assertThat((String) history.get(0).get("change")).contains("history: flow").contains("count=2").contains("count=3");
    assertThat(history.get(0).get("updatedAt")).isNotNull();

    HttpResponse<String> rollback = post(mvc2, "/actuator/weir/fleet/rollback/" + first, "");
    assertThat(rollback.statusCode()).as(rollback.body()).isEqualTo(200);
    long rolledBack = ((Number) json(rollback).get("version")).longValue();
    assertThat(rolledBack).isEqualTo(third + 1);
    assertThat((String) json(rollback).get("change")).startsWith("rollback to version " + first);
    fleet.awaitAll(rolledBack);
    for (ConfigurableApplicationContext instance : fleet.instances) {
      assertThat(flowCount(instance, "history")).isEqualTo(1);
    }
    HttpResponse<String> newest = get(flux, "/actuator/weir/fleet/history");
    assertThat(((List<Map<String, Object>>) json(newest).get("history")).get(0))
        .containsEntry("version", (int) rolledBack);

    assertThat(post(mvc, "/actuator/weir/fleet/rollback/999999", "").statusCode()).isEqualTo(404);
    assertThat(post(flux, "/actuator/weir/fleet/rollback/x1", "").statusCode()).isEqualTo(404);
    assertThat(post(mvc, "/actuator/weir/fleet/nothing/1", "").statusCode()).isEqualTo(404);
    assertThat(storeVersion()).isEqualTo(rolledBack);
  }

  @Test
  @SuppressWarnings("unchecked")
  void theFleetViewListsEveryInstanceWithItsVersionAndTheSummedTraffic() {
    long version = writeFlow(mvc, "view", 9);
    fleet.awaitAll(version);
    Fleet.await("every heartbeat names the version", () -> {
      List<Map<String, Object>> instances = (List<Map<String, Object>>) json(get(mvc2, "/actuator/weir/fleet"))
          .get("instances");
      return instances.size() == 3 && instances.stream()
          .allMatch(i -> i.get("version") instanceof Number applied && applied.longValue() >= version);
    });
    mvc.getBean(FleetTestApplication.FixedTraffic.class).sums = Map.of(API, Map.of("passQps", 12, "blockQps", 3));
    Map<String, Object> view = json(get(mvc, "/actuator/weir/fleet"));
    assertThat(view).containsKeys("version", "updatedAt", "updatedBy", "instances", "resources");
    assertThat(((Number) view.get("version")).longValue()).isGreaterThanOrEqualTo(version);
    assertThat(view.get("updatedBy")).isEqualTo("anonymous");
    assertThat((Map<String, Object>) view.get("resources")).containsEntry(API, Map.of("passQps", 12, "blockQps", 3));
    List<Map<String, Object>> instances = (List<Map<String, Object>>) view.get("instances");
    assertThat(instances).extracting(i -> i.get("id")).containsExactlyInAnyOrder(sync(mvc).id(), sync(mvc2).id(),
        sync(flux).id());
    assertThat(instances).allSatisfy(i -> {
      assertThat(i).containsKeys("id", "version", "lastSeen", "error");
      assertThat(i.get("error")).isNull();
    });
    // The instances without the test's fixed sums have the real one (FleetTrafficRedis): the traffic the
    // instances publish, with the field names of GET /actuator/weir (FleetTrafficTests checks the sums).
    Fleet.await("the published traffic in the view",
        () -> ((Map<String, Object>) json(get(flux, "/actuator/weir/fleet")).get("resources")).containsKey(API));
    assertThat((Map<String, Object>) ((Map<String, Object>) json(get(flux, "/actuator/weir/fleet")).get("resources"))
        .get(API)).containsOnlyKeys("passQps", "blockQps", "successQps", "exceptionQps", "activeCalls");
    // A resource's own read still answers, and an unknown one is still 404.
    assertThat(get(flux, "/actuator/weir/view").statusCode()).isEqualTo(200);
    assertThat(get(mvc, "/actuator/weir/nothing-here").statusCode()).isEqualTo(404);
  }

  @Test
  @SuppressWarnings("unchecked")
  void theMetersAndTheHealthShowTheVersionApplied() {
    long version = writeFlow(flux, "meters", 4);
    fleet.awaitAll(version);
    for (ConfigurableApplicationContext instance : fleet.instances) {
      String prometheus = get(instance, "/actuator/prometheus").body();
      assertThat(prometheus).contains("weir_rules_store_connected 1.0");
      long shown = sync(instance).appliedVersion();
      assertThat(prometheus).containsPattern("weir_rules_version(\\{[^}]*\\})? " + shown + "\\.0");
      Map<String, Object> health = json(get(instance, "/actuator/health"));
      Map<String, Object> details = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) health
          .get("components")).get("weir")).get("details");
      assertThat(((Map<String, Object>) health.get("components")).get("weir").toString()).contains("UP");
      Map<String, Object> store = (Map<String, Object>) details.get("rulesStore");
      assertThat(store).containsEntry("connected", true).containsEntry("instance", sync(instance).id());
      assertThat(((Number) store.get("version")).longValue()).isGreaterThanOrEqualTo(version);
      assertThat((Map<String, Object>) details.get("ruleSources")).containsEntry("store", "ok");
    }
  }
}
