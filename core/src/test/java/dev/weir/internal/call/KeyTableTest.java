package dev.weir.internal.call;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.FakeTicker;
import dev.weir.ScriptedClusterStore;
import dev.weir.Weir;
import dev.weir.cluster.ClusterOptions;
import dev.weir.internal.cluster.LeasedFlowLimiter;
import dev.weir.internal.limit.TrackedKeys;
import dev.weir.rule.ParamFlowItem;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.RuleSet;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The per-key table of a hot-parameter rule holds a bounded heap whatever keys callers send: a
 * bounded number of keys, within a byte budget, a huge string key kept by its digest; and what it
 * costs a caller to push a refused key out of the table, and so get a fresh bucket, is the number
 * of new keys written down in docs/security.md ({@link KeyTable}).
 */
class KeyTableTest {

  private static final int CAPACITY = ParamFlowRule.MAX_TRACKED_VALUES;

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L);

  private Weir engine(Weir.Builder builder, ParamFlowRule rule) {
    return builder.ticker(ticker).sleeper(ticker).rules(RuleSet.empty().withParamFlow(List.of(rule))).build();
  }

  private static boolean admitted(Weir weir, Object key) {
    try (Entry entry = weir.entry("r", EntryType.OUT, 1, key)) {
      return true;
    } catch (BlockException refused) {
      return false;
    }
  }

  private static ParamFlowRuleState state(Weir weir) {
    return ((ResourceNode) weir.statistics("r")).rules.paramFlow[0];
  }

  /** 2,000 distinct keys of 100,000 characters: 200 MB kept before; now their digests, well under the budget. */
  @Test
  void hugeKeysAreKeptByTheirDigest() {
    Weir weir = engine(Weir.builder(), ParamFlowRule.builder("r").count(1).duration(Duration.ofHours(1)).build());
    long before = usedHeapAfterGc();
    String padding = "x".repeat(100_000);
    for (int i = 0; i < 2_000; i++) {
      assertThat(admitted(weir, padding + i)).isTrue();
    }
    long keptKb = (usedHeapAfterGc() - before) / 1024;
    System.out.printf("2,000 keys of 100,000 characters: %d tracked, estimated %d KB, heap kept about %d KB%n",
        state(weir).trackedValues(), state(weir).trackedBytes() / 1024, keptKb);
    assertThat(state(weir).trackedValues()).isEqualTo(2_000);
    assertThat(keptKb).as("heap kept, KB").isLessThan(4 * 1024);
    assertThat(admitted(weir, padding + 7)).as("the same huge key is the same bucket: refused").isFalse();
    assertThat(admitted(weir, padding + 2_000)).as("another huge key, another bucket").isTrue();
  }

  @Test
  void aLongExceptionValueStillMatchesItsKey() {
    String vip = "v".repeat(500);
    Weir weir = engine(Weir.builder(), ParamFlowRule.builder("r").count(1).duration(Duration.ofHours(1))
        .exceptions(List.of(new ParamFlowItem(vip, 3))).build());
    int admittedVip = 0;
    for (int i = 0; i < 5; i++) {
      admittedVip += admitted(weir, vip) ? 1 : 0;
    }
    assertThat(admittedVip).as("the exception's own count").isEqualTo(3);
    assertThat(admitted(weir, vip + "x")).isTrue();
    assertThat(admitted(weir, vip + "x")).as("any other long key: the rule's count").isFalse();
  }

  /**
   * A long key is kept by its digest; a caller who sends the text of that digest (before, the very
   * string the table kept: {@code sha256:} and the base64url SHA-256 of the key's UTF-8) sends a
   * short key, which has a bucket of its own, not the long key's.
   */
  @Test
  void aShortKeySpellingALongKeysDigestHasABucketOfItsOwn() {
    Weir weir = engine(Weir.builder(), ParamFlowRule.builder("r").count(1).duration(Duration.ofHours(1)).build());
    String longKey = "k".repeat(200);
    assertThat(admitted(weir, longKey)).isTrue();
    assertThat(admitted(weir, longKey)).as("the long key's bucket of 1 is empty").isFalse();
    for (String spelled : digestSpellings(longKey)) {
      assertThat(admitted(weir, spelled)).as("the short key %s: a bucket of its own", spelled).isTrue();
      assertThat(admitted(weir, spelled)).as("and only its own").isFalse();
    }
    assertThat(state(weir).trackedValues()).isEqualTo(1 + digestSpellings(longKey).size());
  }

  /** A caller who sends the text of a long exception value's digest gets the rule's count, not the exception's. */
  @Test
  void aShortKeySpellingALongExceptionValuesDigestHasTheRulesCount() {
    String vip = "v".repeat(500);
    Weir weir = engine(Weir.builder(), ParamFlowRule.builder("r").count(1).duration(Duration.ofHours(1))
        .exceptions(List.of(new ParamFlowItem(vip, 3))).build());
    for (String spelled : digestSpellings(vip)) {
      assertThat(admitted(weir, spelled)).isTrue();
      assertThat(admitted(weir, spelled)).as("%s: the rule's count of 1", spelled).isFalse();
    }
  }

  /** The texts a long key's digest has been or is written as: the literal of the issue, and the kept key's own text. */
  private static List<String> digestSpellings(String longKey) {
    String utf8Digest;
    try {
      utf8Digest = "sha256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(
          MessageDigest.getInstance("SHA-256").digest(longKey.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException absent) {
      throw new AssertionError(absent);
    }
    return List.of(utf8Digest, String.valueOf(TrackedKeys.compact(longKey)));
  }

  /**
   * Leased cluster keys ({@code weir.cluster.lease}) each hold a lease and its bookkeeping: weighed
   * with {@link LeasedFlowLimiter#KEY_BYTES}, so the byte budget bounds them too (without it, about
   * 3.5 times as many keys were kept for the same budget).
   */
  @Test
  void leasedClusterKeysAreWeighedWithTheirLeases() {
    ScriptedClusterStore store = new ScriptedClusterStore();
    store.leasing = true;
    long budget = 256 * 1024;
    try (Weir weir = engine(Weir.builder().maxKeyBytesPerRule(budget)
            .cluster(store, ClusterOptions.DEFAULTS.withLease(true)),
        ParamFlowRule.builder("r").count(100).duration(Duration.ofHours(1)).clusterMode(true).build())) {
      for (int i = 0; i < 2_000; i++) {
        admitted(weir, "k" + (1000 + i));
      }
      long perEntry = TrackedKeys.bytes("k1000") + LeasedFlowLimiter.KEY_BYTES;
      assertThat(state(weir).trackedBytes()).isLessThanOrEqualTo(budget);
      assertThat(state(weir).trackedValues()).as("about budget / entry")
          .isBetween((int) (budget / perEntry) - 16, (int) (budget / perEntry) + 16);
    }
  }

  /** A byte budget binds before the count when entries are large: the table keeps within it. */
  @Test
  void theByteBudgetBindsBeforeTheCount() {
    long budget = 256 * 1024;
    Weir weir = engine(Weir.builder().maxKeyBytesPerRule(budget),
        ParamFlowRule.builder("r").count(1).duration(Duration.ofHours(1)).build());
    for (int i = 0; i < 20_000; i++) {
      admitted(weir, "k".repeat(100) + i); // 103..105 characters: under the digest's threshold
    }
    assertThat(state(weir).trackedBytes()).isLessThanOrEqualTo(budget);
    long perEntry = TrackedKeys.bytes("k".repeat(105));
    assertThat(state(weir).trackedValues()).as("about budget / entry").isGreaterThan((int) (budget / perEntry) - 16)
        .isLessThan(ParamFlowRule.MAX_TRACKED_VALUES);
  }

  /*
   * What a caller pays to get a fresh bucket for a refused key K by pushing it out of the table:
   * K must stay unused while the table's hand sweeps it twice (KeyTable: CLOCK over one ring for all
   * keys, so no key can be aimed at K by its hash), that is between one and two times the capacity
   * of new keys.
   */

  @Test
  void pushingAnIdleRefusedKeyOutTakesOneToTwoTurnsOfNewKeysAimedOrNot() {
    for (boolean aimedByHash : new boolean[] {false, true}) {
      Weir weir = engine(Weir.builder(), ParamFlowRule.builder("r").count(1).duration(Duration.ofHours(1)).build());
      String refused = "victim";
      assertThat(admitted(weir, refused)).isTrue();
      assertThat(admitted(weir, refused)).isFalse();
      List<String> keys = aimedByHash ? aimedAt(refused, 3 * CAPACITY) : fresh(3 * CAPACITY);
      int sent = 0;
      while (state(weir).tracks(refused)) {
        assertThat(admitted(weir, keys.get(sent++))).isTrue();
      }
      System.out.printf("an idle key left the table after %d new keys (%s)%n", sent,
          aimedByHash ? "aimed at its old segment" : "not aimed");
      assertThat(sent).as("new keys %s before the refused key left", aimedByHash ? "aimed" : "not aimed")
          .isBetween(CAPACITY - 1, 2 * CAPACITY);
      assertThat(admitted(weir, refused)).as("a fresh bucket, bought with %d new keys", sent).isTrue();
    }
  }

  @Test
  void aRefusedKeyThatKeepsComingIsNeverPushedOut() {
    Weir weir = engine(Weir.builder(), ParamFlowRule.builder("r").count(1).duration(Duration.ofHours(1)).build());
    String refused = "victim";
    assertThat(admitted(weir, refused)).isTrue();
    List<String> others = fresh(3 * CAPACITY);
    for (int i = 0; i < others.size(); i++) {
      admitted(weir, others.get(i));
      if (i % (CAPACITY / 2) == 0) {
        assertThat(admitted(weir, refused)).as("refused after %d new keys", i).isFalse();
      }
    }
  }

  private static List<String> fresh(int n) {
    List<String> out = new java.util.ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add("key-" + i);
    }
    return out;
  }

  /** {@code n} distinct strings in what was the segment of {@code key} when the table had 16 (4 bits of the spread hash). */
  private static List<String> aimedAt(String key, int n) {
    int target = segment(key);
    List<String> out = new java.util.ArrayList<>();
    for (int i = 0; out.size() < n; i++) {
      String candidate = "junk-" + i;
      if (segment(candidate) == target) {
        out.add(candidate);
      }
    }
    return out;
  }

  private static int segment(Object key) {
    int hash = key.hashCode();
    return (hash ^ (hash >>> 16)) & 15;
  }

  private static long usedHeapAfterGc() {
    Runtime runtime = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return runtime.totalMemory() - runtime.freeMemory();
  }
}
