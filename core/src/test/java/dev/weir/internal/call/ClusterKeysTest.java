package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.FakeTicker;
import dev.weir.ScriptedClusterStore;
import dev.weir.Weir;
import dev.weir.cluster.ClusterFallback;
import dev.weir.cluster.ClusterKeyLimit;
import dev.weir.cluster.ClusterOptions;
import dev.weir.internal.cluster.ClusterGuard;
import dev.weir.internal.cluster.ClusterKeys;
import dev.weir.internal.limit.TrackedKeys;
import dev.weir.internal.time.EngineClock;
import dev.weir.rule.ParamFlowItem;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The text a cluster store gets for a caller's key ({@link ClusterKeys}): made of safe characters
 * only, short, and different for different keys, even where a naive {@code String.valueOf} (what
 * the store got before) made two keys one: the null keys and a caller's {@code "<null key>"}, a
 * number and its digits, an unpaired surrogate and {@code ?}. And the name a rule's keys carry: one
 * per rule of a resource, so no two rules count in one store key (issue 35).
 */
class ClusterKeysTest {

  private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9._~%!=-]{0,128}");

  @Test
  void keysAreEncodedIntoSafeShortTextsThatTellThemApart() {
    List<Object> keys = new ArrayList<>(List.of("plain", "api-key_7.x~", "", " ", "a}b", "a{b}c", "x|y",
        "k}:pk:param=0,1000ms", "%41", "A", "!null", "<null key>", "line\nbreak", "\u0000", "?", "\uD800", "\uDC00",
        "\uD83D\uDE00", "é", "€".repeat(128), "z".repeat(128), "sha256:" + "A".repeat(43), 7, 7L, "7", (short) 7,
        UUID.fromString("00000000-0000-0000-0000-000000000007"), ParamFlowRuleState.NULL_KEY, true, "true", 'c', "c"));
    Set<String> texts = new HashSet<>();
    for (Object key : keys) {
      String text = ClusterKeys.text(key);
      assertThat(text).as("text of %s", key).matches(SAFE);
      assertThat(texts.add(text)).as("text of %s, %s, is another key's", key, text).isTrue();
      new ClusterKeyLimit("r", "param=0,1000ms", text, 1, Duration.ofSeconds(1), 0); // accepted as it is
    }
    assertThat(ClusterKeys.text("api-key-7")).as("an everyday key stays readable").isEqualTo("api-key-7");
    assertThat(ClusterKeys.text("a}b")).isEqualTo("a%7Db");
    assertThat(ClusterKeys.text("é")).isEqualTo("%C3%A9");
    assertThat(ClusterKeys.text("\uD800")).as("an unpaired surrogate, as WTF-8").isEqualTo("%ED%A0%80");
    assertThat(ClusterKeys.text(ParamFlowRuleState.NULL_KEY)).isEqualTo("!null");
    assertThat(ClusterKeys.text(7)).isEqualTo("!java.lang.Integer=7");
    assertThat(ClusterKeys.text("€".repeat(128))).as("1152 characters encoded: its digest")
        .startsWith("!sha256=").hasSize(8 + 43);
  }

  /**
   * A string key over 128 characters reaches the store as the digest the table keeps it by, in a
   * form no string has: before, the store got {@code sha256%3A<digest>}, which is also the text of
   * the short key {@code sha256:<digest>} that any caller could send.
   */
  @Test
  void aLongKeysDigestHasATextNoStringHas() throws Exception {
    String longKey = "k".repeat(200);
    Object kept = TrackedKeys.compact(longKey);
    String text = ClusterKeys.text(kept);
    assertThat(text).matches("!!sha256=[A-Za-z0-9_-]{43}");
    assertThat(ClusterKeys.text(TrackedKeys.compact("k".repeat(200)))).as("the same long key, the same text")
        .isEqualTo(text);
    assertThat(ClusterKeys.text(TrackedKeys.compact("k".repeat(201)))).as("another long key").isNotEqualTo(text);
    String utf8Digest = Base64.getUrlEncoder().withoutPadding().encodeToString(
        MessageDigest.getInstance("SHA-256").digest(longKey.getBytes(StandardCharsets.UTF_8)));
    for (String spelled : List.of("sha256:" + utf8Digest, String.valueOf(kept), text, text.substring(1),
        text.substring(9), "sha256:" + text.substring(9))) {
      assertThat(ClusterKeys.text(spelled)).as("the short key %s", spelled).isNotEqualTo(text);
    }
    new ClusterKeyLimit("r", "param=0,1000ms", text, 1, Duration.ofSeconds(1), 0);
  }

  /**
   * A long string's digest is taken over its UTF-16 code units: two strings that differ only in an
   * unpaired surrogate where the other has {@code ?} (what UTF-8 writes for one) are two keys.
   */
  @Test
  void longKeysThatDifferInAnUnpairedSurrogateAreTwoKeys() {
    String tail = "x".repeat(200);
    assertThat(TrackedKeys.compact("\uD800" + tail)).isNotEqualTo(TrackedKeys.compact("?" + tail));
    assertThat(ClusterKeys.text(TrackedKeys.compact("\uD800" + tail)))
        .isNotEqualTo(ClusterKeys.text(TrackedKeys.compact("?" + tail)));
  }

  /**
   * A key of another type is {@code !<class>=<text>}; for a class named {@code sha256} (in the
   * unnamed package) whose text is a base64url digest that would be {@code !sha256=<digest>}, the
   * text of some overlong key: such an encoding is digested too, so it cannot pass for that key.
   */
  @Test
  void aKeyOfAClassNamedSha256CannotPassForAnOverlongKey() throws Exception {
    String overlong = ClusterKeys.text("€".repeat(128));
    Object impostor = sha256Named(overlong.substring("!sha256=".length()));
    assertThat(impostor.getClass().getName()).isEqualTo("sha256");
    assertThat(ClusterKeys.text(impostor)).as("the impostor's text").isNotEqualTo(overlong)
        .matches("!sha256=[A-Za-z0-9_-]{43}");
  }

  /**
   * An instance of a class named {@code sha256} in the unnamed package, whose {@code toString} is
   * {@code text}: a class file made by hand (Java 5: no stack maps), since no source in a package
   * can declare one.
   */
  private static Object sha256Named(String text) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeInt(0xCAFEBABE);
    out.writeShort(0); // minor version
    out.writeShort(49); // Java 5
    out.writeShort(14); // constants #1..#13
    out.writeByte(1); out.writeUTF("sha256"); // #1
    out.writeByte(7); out.writeShort(1); // #2 this class
    out.writeByte(1); out.writeUTF("java/lang/Object"); // #3
    out.writeByte(7); out.writeShort(3); // #4 super class
    out.writeByte(1); out.writeUTF("<init>"); // #5
    out.writeByte(1); out.writeUTF("()V"); // #6
    out.writeByte(12); out.writeShort(5); out.writeShort(6); // #7 <init>()V
    out.writeByte(10); out.writeShort(4); out.writeShort(7); // #8 Object.<init>()V
    out.writeByte(1); out.writeUTF("toString"); // #9
    out.writeByte(1); out.writeUTF("()Ljava/lang/String;"); // #10
    out.writeByte(1); out.writeUTF(text); // #11
    out.writeByte(8); out.writeShort(11); // #12 the string constant
    out.writeByte(1); out.writeUTF("Code"); // #13
    out.writeShort(0x21); // public, super
    out.writeShort(2);
    out.writeShort(4);
    out.writeShort(0); // interfaces
    out.writeShort(0); // fields
    out.writeShort(2); // methods
    byte[][] codes = {
        {0x2A, (byte) 0xB7, 0x00, 0x08, (byte) 0xB1}, // aload_0, invokespecial #8, return
        {0x12, 0x0C, (byte) 0xB0}}; // ldc #12, areturn
    int[][] nameAndType = {{5, 6}, {9, 10}};
    for (int m = 0; m < 2; m++) {
      out.writeShort(0x01); // public
      out.writeShort(nameAndType[m][0]);
      out.writeShort(nameAndType[m][1]);
      out.writeShort(1); // attributes: Code
      out.writeShort(13);
      out.writeInt(12 + codes[m].length);
      out.writeShort(1); // max stack
      out.writeShort(1); // max locals
      out.writeInt(codes[m].length);
      out.write(codes[m]);
      out.writeShort(0); // exception table
      out.writeShort(0); // attributes
    }
    out.writeShort(0); // class attributes
    byte[] classFile = bytes.toByteArray();
    Class<?> named = new ClassLoader(ClusterKeysTest.class.getClassLoader()) {
      Class<?> define() {
        return defineClass("sha256", classFile, 0, classFile.length);
      }
    }.define();
    return named.getConstructor().newInstance();
  }

  @Test
  void aRuleIsNamedByItsExpressionWhenShortAndPrintableElseByItsDigest() {
    ParamFlowRule byIndex = ParamFlowRule.builder("r").paramIndex(1).count(1).duration(Duration.ofSeconds(2)).build();
    assertThat(ClusterKeys.ruleName(byIndex)).isEqualTo("param=1,2000ms");
    ParamFlowRule.Builder keyed = ParamFlowRule.builder("r").count(1).duration(Duration.ofSeconds(1));
    assertThat(ClusterKeys.ruleName(keyed.key("#apiKey").build())).isEqualTo("key=#apiKey,1000ms");
    String longExpression = "#apiKey + '" + "x".repeat(200) + "'";
    assertThat(ClusterKeys.ruleName(keyed.key(longExpression).build())).matches("key-sha256=[A-Za-z0-9_-]{43},1000ms");
    assertThat(ClusterKeys.ruleName(keyed.key("#a + ' '").build())).as("a space is not kept")
        .startsWith("key-sha256=");
    assertThat(ClusterKeys.ruleName(keyed.key("#a + 'x'").build()))
        .isNotEqualTo(ClusterKeys.ruleName(keyed.key("#a + 'y'").build()));
  }

  /**
   * A shadow rule has a name of its own, and so has every further cluster-mode rule of the resource
   * on the same argument and duration (by its place among them); local rules take no place, and
   * what a rule may change and keep its counts (count, burst, exceptions, null-key, name) is not in
   * the name.
   */
  @Test
  void everyClusterRuleOfAResourceHasANameOfItsOwn() {
    ParamFlowRule enforced = PER_KEY.toBuilder().count(10).build();
    ParamFlowRule shadow = PER_KEY.toBuilder().count(5).shadow(true).build();
    ParamFlowRule burst = PER_KEY.toBuilder().count(10).burst(5).build();
    ParamFlowRule local = PER_KEY.toBuilder().count(3).clusterMode(false).build();
    ParamFlowRule keyed = PER_KEY.toBuilder().key("#apiKey").build();
    assertThat(ClusterKeys.ruleNames(List.of(local, enforced, shadow, keyed, burst, shadow, enforced)))
        .containsExactly(null, "param=0,1000ms", "param=0,1000ms,shadow", "key=#apiKey,1000ms", "param=0,1000ms,#2",
            "param=0,1000ms,shadow,#2", "param=0,1000ms,#3");
    ParamFlowRule changed = enforced.toBuilder().count(20).burst(7).nullKey(dev.weir.rule.NullKey.DENY).name("tier")
        .exceptions(List.of(new ParamFlowItem("vip", 100))).build();
    assertThat(ClusterKeys.ruleNames(List.of(changed))).containsExactly("param=0,1000ms");
    assertThat(ClusterKeys.ruleName(PER_KEY.toBuilder().duration(Duration.ofSeconds(2)).build()))
        .isNotEqualTo(ClusterKeys.ruleName(PER_KEY));
  }

  /** Issue 35: a shadow rule of 5 beside a rule of 10 in force on the same argument made the rule admit 4 per key. */
  @Test
  void aShadowRuleChangesNothingTheRuleInForceAdmits() {
    ScriptedClusterStore store = new ScriptedClusterStore();
    Weir weir = clustered(store, PER_KEY.toBuilder().count(10).build(), PER_KEY.toBuilder().count(5).shadow(true).build());
    for (String key : List.of("k1", "k2")) {
      assertThat(admitted(weir, key, 20)).as(key).isEqualTo(10);
    }
    assertThat(store.keyLimits).extracting(ClusterKeyLimit::rule).containsOnly("param=0,1000ms", "param=0,1000ms,shadow");
  }

  /** Issue 35: two rules in force of 10 (one with a burst of 5) shared a count, so each call took two permits of it. */
  @Test
  void twoRulesInForceOnOneArgumentEachCountACallOnce() {
    ScriptedClusterStore store = new ScriptedClusterStore();
    Weir weir = clustered(store, PER_KEY.toBuilder().count(10).build(), PER_KEY.toBuilder().count(10).burst(5).build());
    assertThat(admitted(weir, "k", 20)).isEqualTo(10);
    assertThat(store.keyLimits).extracting(ClusterKeyLimit::rule).containsExactly("param=0,1000ms", "param=0,1000ms,#2");
  }

  /**
   * A rule whose name changes (switched out of shadow mode, moved behind a new rule of its argument)
   * counts under its new name from its next call, as an instance that starts with the new rules does:
   * its state is not handed on with its old limiters. A change of count keeps the name.
   */
  @Test
  void aRuleCountsUnderItsNameAfterAReplacement() {
    ScriptedClusterStore store = new ScriptedClusterStore();
    ParamFlowRule shadow = PER_KEY.toBuilder().count(10).shadow(true).build();
    Weir weir = clustered(store, shadow);
    admitted(weir, "k", 1);
    weir.rules().replace("r", RuleSet.empty().withParamFlow(List.of(shadow.withShadow(false))));
    admitted(weir, "k", 1);
    ParamFlowRule inForce = PER_KEY.toBuilder().count(10).build();
    weir.rules().replace("r", RuleSet.empty().withParamFlow(List.of(PER_KEY.toBuilder().count(3).build(), inForce)));
    admitted(weir, "k", 1);
    weir.rules().replace("r", RuleSet.empty().withParamFlow(List.of(inForce.toBuilder().count(12).build())));
    admitted(weir, "k", 1);
    assertThat(store.keyLimits).extracting(limit -> limit.rule() + " " + limit.count()).containsExactly(
        "param=0,1000ms,shadow 10.0", "param=0,1000ms 10.0", "param=0,1000ms 3.0", "param=0,1000ms,#2 10.0",
        "param=0,1000ms 12.0");
  }

  private static final ParamFlowRule PER_KEY = ParamFlowRule.builder("r").paramIndex(0).count(1)
      .duration(Duration.ofSeconds(1)).clusterMode(true).build();

  private static Weir clustered(ScriptedClusterStore store, ParamFlowRule... rules) {
    FakeTicker ticker = new FakeTicker();
    return Weir.builder().ticker(ticker).sleeper(ticker)
        .cluster(store, new ClusterOptions(Duration.ofMillis(20), ClusterFallback.DENY, 3, Duration.ofSeconds(1), 64))
        .rules(RuleSet.empty().withParamFlow(List.of(rules))).build();
  }

  private static int admitted(Weir weir, Object key, int calls) {
    int admitted = 0;
    for (int i = 0; i < calls; i++) {
      admitted += admitted(weir, key);
    }
    return admitted;
  }

  @Test
  void aLimitRefusesAKeyThatWasNotEncoded() {
    for (String raw : List.of("a}b", "a{b", "x|y", "k:v", "line\nbreak", "é", "z".repeat(129))) {
      assertThatThrownBy(() -> new ClusterKeyLimit("r", "param=0,1000ms", raw, 1, Duration.ofSeconds(1), 0))
          .as("key %s", raw).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key must");
    }
  }

  @Test
  void theStoreIsAskedForTheEncodedKeyAndTheNullKeyForItsOwn() {
    ScriptedClusterStore store = new ScriptedClusterStore();
    FakeTicker ticker = new FakeTicker();
    EngineClock clock = new EngineClock(ticker, ticker);
    ClusterGuard guard = new ClusterGuard(store,
        new ClusterOptions(Duration.ofMillis(20), ClusterFallback.DENY, 3, Duration.ofSeconds(1), 64), clock);
    Limiters limiters = new Limiters(clock, guard, null, 100, Weir.DEFAULT_MAX_KEY_BYTES_PER_RULE,
        new Overflow(100, 100));
    ParamFlowRule rule = ParamFlowRule.builder("api").paramIndex(0).count(1).duration(Duration.ofMinutes(1))
        .clusterMode(true).build();
    limiters.forParamValue(rule, "<null key>", 1);
    limiters.forParamValue(rule, ParamFlowRuleState.NULL_KEY, 1);
    limiters.forParamValue(rule, "a}b", 1);
    assertThat(store.keyLimits).extracting(ClusterKeyLimit::key).containsExactly("%3Cnull%20key%3E", "!null", "a%7Db");
  }

  /** The null keys of a shared rule count under the rule's count, even beside an exception valued {@code <null key>}. */
  @Test
  void noExceptionValueAppliesToTheNullKeys() {
    ParamFlowRule rule = ParamFlowRule.builder("r").paramIndex(0).count(1).duration(Duration.ofHours(1))
        .exceptions(List.of(new ParamFlowItem("<null key>", 5))).build();
    Weir weir = Weir.builder().ticker(new FakeTicker()).rules(RuleSet.empty().withParamFlow(List.of(rule))).build();
    int nullAdmitted = 0;
    int namedAdmitted = 0;
    for (int i = 0; i < 10; i++) {
      nullAdmitted += admitted(weir, (Object) null);
      namedAdmitted += admitted(weir, "<null key>");
    }
    assertThat(nullAdmitted).isEqualTo(1);
    assertThat(namedAdmitted).as("the exception is the string's").isEqualTo(5);
  }

  private static int admitted(Weir weir, Object key) {
    try (Entry entry = weir.entry("r", EntryType.OUT, 1, key)) {
      return 1;
    } catch (BlockException refused) {
      return 0;
    }
  }
}
