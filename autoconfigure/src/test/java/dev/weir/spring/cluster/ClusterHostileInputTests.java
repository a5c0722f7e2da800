package dev.weir.spring.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.FlowException;
import dev.weir.ParamFlowException;
import dev.weir.Weir;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Cluster mode against a real {@code redis-server}, with what callers choose: the keys of per-key
 * rules (any character, any length, any type, the text of the null key) and the weight of a call.
 * No caller-chosen character may be structural in a Redis key (hash tag braces, the separators),
 * two different keys never share a bucket, and nothing a caller sends makes a script fail (a
 * failure would count against the store's breaker, which then takes every cluster rule off Redis).
 * Every test runs with {@code fallback: deny} and asserts that no decision fell back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ClusterHostileInputTests extends WithSharedRedisServer {

  private static final AtomicInteger PREFIXES = new AtomicInteger();
  /** What the part of a per-key Redis key inside the hash tag, after the resource, may hold. */
  private static final Pattern SAFE_KEY = Pattern.compile("[A-Za-z0-9._~%!=-]*");

  private final String prefix = "hostile" + PREFIXES.incrementAndGet();

  private ConfigurableApplicationContext instance(Map<String, String> rules) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("weir.cluster.timeout", "2s");
    properties.put("weir.cluster.fallback", "deny");
    properties.putAll(rules);
    return instance(HostileKeysApplication.class, prefix, properties);
  }

  private static Map<String, String> perKeyRule(String resource, int count) {
    return Map.of(
        "weir.param-flow[0].resource", resource,
        "weir.param-flow[0].param-index", "0",
        "weir.param-flow[0].count", Integer.toString(count),
        "weir.param-flow[0].duration", "10s",
        "weir.param-flow[0].cluster-mode", "true");
  }

  private static long fallbacks(ConfigurableApplicationContext context) {
    return context.getBean(Weir.class).cluster().fallbacks();
  }

  private static boolean admitted(Runnable call) {
    try {
      call.run();
      return true;
    } catch (ParamFlowException refused) {
      return false;
    }
  }

  @SuppressWarnings("unchecked")
  private List<String> redisKeys() {
    List<String> keys = new ArrayList<>();
    for (Object key : (List<Object>) redis.call("KEYS", prefix + ":*")) {
      keys.add(key.toString());
    }
    return keys;
  }

  @Test
  void aCallerNamingItsKeyLikeTheNullKeyGetsABucketOfItsOwn() {
    ConfigurableApplicationContext context = instance(perKeyRule("hostile.keyed", 2));
    HostileKeysApplication.Keyed keyed = context.getBean(HostileKeysApplication.Keyed.class);
    assertThat(admitted(() -> keyed.quote("<null key>"))).isTrue();
    assertThat(admitted(() -> keyed.quote("<null key>"))).isTrue();
    assertThat(admitted(() -> keyed.quote("<null key>"))).as("its bucket of 2 is empty").isFalse();
    assertThat(admitted(() -> keyed.quote(null))).as("calls without a key share another bucket").isTrue();
    assertThat(fallbacks(context)).isZero();
  }

  /**
   * A key over 128 characters is counted by its SHA-256. Before, it reached Redis as the text the
   * engine kept, {@code sha256:} and the base64url SHA-256 of its UTF-8, which is also a short key
   * any caller could send. The two calls go to two instances, so that no local table joins them:
   * only their Redis keys could.
   */
  @Test
  void aCallerSpellingALongKeysDigestGetsABucketOfItsOwn() throws Exception {
    HostileKeysApplication.Keyed first = instance(perKeyRule("hostile.keyed", 1))
        .getBean(HostileKeysApplication.Keyed.class);
    HostileKeysApplication.Keyed second = instance(perKeyRule("hostile.keyed", 1))
        .getBean(HostileKeysApplication.Keyed.class);
    String longKey = "k".repeat(200);
    String spelled = "sha256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(
        MessageDigest.getInstance("SHA-256").digest(longKey.getBytes(StandardCharsets.UTF_8)));
    assertThat(admitted(() -> first.quote(longKey))).isTrue();
    assertThat(admitted(() -> second.quote(longKey))).as("the long key's bucket of 1, in Redis, is empty").isFalse();
    assertThat(admitted(() -> second.quote(spelled))).as("the text of its digest is another key").isTrue();
    assertThat(admitted(() -> first.quote(spelled))).as("whose bucket of 1 is empty now").isFalse();
    assertThat(instances).allSatisfy(context -> assertThat(fallbacks(context)).isZero());
    List<String> keys = redisKeys();
    assertThat(keys).hasSize(2);
    assertThat(keys).anySatisfy(key -> assertThat(key).contains("{hostile.keyed|!!sha256="))
        .anySatisfy(key -> assertThat(key).contains("{hostile.keyed|sha256%3A"));
  }

  @Test
  void aKeyOfAnotherTypeWithTheSameTextHasABucketOfItsOwnAsOnOneInstance() {
    ConfigurableApplicationContext context = instance(perKeyRule("hostile.typed", 1));
    HostileKeysApplication.Keyed keyed = context.getBean(HostileKeysApplication.Keyed.class);
    assertThat(admitted(() -> keyed.typed(7))).isTrue();
    assertThat(admitted(() -> keyed.typed(7))).isFalse();
    assertThat(admitted(() -> keyed.typed("7"))).as("the string 7 is another key").isTrue();
    assertThat(admitted(() -> keyed.typed(7L))).as("and so is the long 7").isTrue();
    assertThat(fallbacks(context)).isZero();
  }

  @Test
  void noCharacterOfACallersKeyIsStructuralInItsRedisKey() {
    ConfigurableApplicationContext context = instance(perKeyRule("hostile.keyed", 1));
    HostileKeysApplication.Keyed keyed = context.getBean(HostileKeysApplication.Keyed.class);
    List<String> hostile = List.of("plain", "a}b", "a}c", "a{b}c", "{hostile.keyed|plain}", "x|y",
        "k}:pk:param=0,10000ms", "line\nbreak", "", " ", "\u0000", "%41", "A", "!null", "é", "€".repeat(128),
        "z".repeat(129), "z".repeat(130));
    for (String key : hostile) {
      assertThat(admitted(() -> keyed.quote(key))).as("the first call of key %s", key).isTrue();
    }
    for (String key : hostile) {
      assertThat(admitted(() -> keyed.quote(key))).as("the second call of key %s: its bucket of 1 is empty", key)
          .isFalse();
    }
    assertThat(fallbacks(context)).isZero();

    List<String> keys = redisKeys();
    assertThat(keys).as("one Redis key per caller key").hasSize(hostile.size());
    String head = prefix + ":{hostile.keyed|";
    String tail = "}:pk:param=0,10000ms";
    List<String> tags = new ArrayList<>();
    for (String key : keys) {
      assertThat(key).startsWith(head).endsWith(tail);
      String inside = key.substring(head.length(), key.length() - tail.length());
      assertThat(inside).as("the caller's part of %s", key).matches(SAFE_KEY).hasSizeLessThanOrEqualTo(128);
      tags.add(inside);
    }
    assertThat(tags).as("every key its own hash tag, so its own slot choice").doesNotHaveDuplicates();
  }

  /**
   * Origins come from a request header ({@code weir.web.origin-header}) and name the window of each
   * origin under {@code limit-app: other}: {@code other=<origin>}. The origins beyond the bound
   * share one window, {@code other=*}, which a caller whose origin was {@code *} reached.
   */
  @Test
  void aCallersOriginCannotNameTheOverflowWindowOfTheOtherOrigins() {
    ConfigurableApplicationContext context = instance(Map.of(
        "weir.flow[0].resource", "hostile.origins",
        "weir.flow[0].count", "1",
        "weir.flow[0].interval", "10s",
        "weir.flow[0].limit-app", "other",
        "weir.flow[0].cluster-mode", "true"));
    Weir weir = context.getBean(Weir.class);
    assertThat(calledAs(weir, "*")).isTrue();
    assertThat(calledAs(weir, "a}:flow:other=*:10000ms")).isTrue(); // the second origin with a window of its own
    assertThat(calledAs(weir, "b")).as("the first origin beyond the bound: the overflow window, unused").isTrue();
    assertThat(calledAs(weir, "c")).as("the overflow window holds 1").isFalse();
    assertThat(calledAs(weir, "*")).isFalse();
    assertThat(fallbacks(context)).isZero();
    assertThat(redisKeys()).containsExactlyInAnyOrder(prefix + ":{hostile.origins}:flow:other=%2A:10000ms",
        prefix + ":{hostile.origins}:flow:other=a%7D%3Aflow%3Aother%3D%2A%3A10000ms:10000ms",
        prefix + ":{hostile.origins}:flow:other=*:10000ms");
  }

  private static boolean calledAs(Weir weir, String origin) {
    return weir.callInContext("hostile", origin, () -> {
      try (Entry entry = weir.entry("hostile.origins")) {
        return true;
      } catch (FlowException refused) {
        return false;
      }
    });
  }

  /**
   * A call of 5000 permits on an exact cluster rule of 10000: its members were added with one
   * {@code ZADD} of 10000 arguments, beyond what Lua can unpack ("too many results to unpack"), so
   * the script failed, the call fell back, and such calls in a row opened the store's breaker.
   */
  @Test
  void aHeavyCallOnAnExactClusterRuleIsDecidedByRedis() {
    ConfigurableApplicationContext context = instance(Map.of(
        "weir.flow[0].resource", "hostile.exact",
        "weir.flow[0].count", "10000",
        "weir.flow[0].interval", "10s",
        "weir.flow[0].exact", "true",
        "weir.flow[0].cluster-mode", "true"));
    Weir weir = context.getBean(Weir.class);
    for (int i = 0; i < 2; i++) {
      try (Entry entry = weir.entry("hostile.exact", EntryType.OUT, 5000)) {
        assertThat(entry.acquireCount()).isEqualTo(5000);
      }
    }
    assertThatThrownBy(() -> weir.entry("hostile.exact", EntryType.OUT, 1)).isInstanceOf(FlowException.class);
    assertThat(fallbacks(context)).isZero();
    assertThat(redis.call("ZCARD", prefix + ":{hostile.exact}:exact:all:10000ms")).isEqualTo(10_000L);
  }

  /** The same in one {@code several-limits.lua} call: an exact rule beside a bucketed one. */
  @Test
  void aHeavyCallOnSeveralClusterRulesIsDecidedByRedis() {
    ConfigurableApplicationContext context = instance(Map.of(
        "weir.flow[0].resource", "hostile.several",
        "weir.flow[0].count", "10000",
        "weir.flow[0].interval", "10s",
        "weir.flow[0].exact", "true",
        "weir.flow[0].cluster-mode", "true",
        "weir.flow[1].resource", "hostile.several",
        "weir.flow[1].count", "100000",
        "weir.flow[1].interval", "1m",
        "weir.flow[1].cluster-mode", "true"));
    Weir weir = context.getBean(Weir.class);
    for (int i = 0; i < 2; i++) {
      weir.entry("hostile.several", EntryType.OUT, 5000).close();
    }
    BlockException refused = null;
    try {
      weir.entry("hostile.several", EntryType.OUT, 1).close();
    } catch (BlockException e) {
      refused = e;
    }
    assertThat(refused).isInstanceOf(FlowException.class);
    assertThat(fallbacks(context)).isZero();
    assertThat(redis.call("ZCARD", prefix + ":{hostile.several}:exact:all:10000ms")).isEqualTo(10_000L);
  }

  /** The largest numbers a per-key rule may hold: a day per permit and the largest burst. */
  @Test
  void aPerKeyRuleAtItsBoundsIsDecidedByRedis() {
    ConfigurableApplicationContext context = instance(Map.of(
        "weir.param-flow[0].resource", "hostile.keyed",
        "weir.param-flow[0].param-index", "0",
        "weir.param-flow[0].count", "1",
        "weir.param-flow[0].duration", "1d",
        "weir.param-flow[0].burst", Integer.toString(Integer.MAX_VALUE),
        "weir.param-flow[0].cluster-mode", "true"));
    Weir weir = context.getBean(Weir.class);
    weir.entry("hostile.keyed", EntryType.OUT, Integer.MAX_VALUE, "k").close(); // the whole burst, at once
    assertThat(admitted(() -> weir.entry("hostile.keyed", EntryType.OUT, 1, "k").close())).isTrue(); // the count
    assertThatThrownBy(() -> weir.entry("hostile.keyed", EntryType.OUT, 1, "k"))
        .isInstanceOf(ParamFlowException.class);
    assertThat(fallbacks(context)).isZero();
    List<String> keys = redisKeys();
    assertThat(keys).hasSize(1);
    long ttl = (Long) redis.call("PTTL", keys.get(0));
    assertThat(ttl).as("the key lives until its bucket is full again: about 2^31 days")
        .isGreaterThan(86_400_000L * Integer.MAX_VALUE / 2);
  }
}
