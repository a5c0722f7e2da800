package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.AuthorityRule;
import dev.weir.rule.AuthorityStrategy;
import dev.weir.rule.InvalidRulesException;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.rule.SystemRule;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class AuthorityAndSystemTest {

  private final FakeTicker ticker = new FakeTicker(3_600_000_000_000_000L);

  @Test
  void allowListPassesListedOriginsOnlyAndRefusesCallsWithoutOrigin() {
    Weir weir = Weir.builder().ticker(ticker)
        .rules(RuleSet.empty().withAuthority(List.of(AuthorityRule.allow("r", "appA", "appB")))).build();
    assertThat(weir.callInContext("c", "appA", () -> Calls.tryOnce(weir, "r"))).isNull();
    BlockException refused = weir.callInContext("c", "appC", () -> Calls.tryOnce(weir, "r"));
    assertThat(refused).isInstanceOf(AuthorityException.class);
    assertThat(refused.ruleKind().tag()).isEqualTo("authority");
    assertThat(Calls.tryOnce(weir, "r")).as("no origin").isInstanceOf(AuthorityException.class);
    assertThat(weir.callInContext("c", "", () -> Calls.tryOnce(weir, "r"))).as("an empty origin")
        .isInstanceOf(AuthorityException.class);
    assertThat(weir.callInContext("c", null, () -> Calls.tryOnce(weir, "r"))).as("a null origin")
        .isInstanceOf(AuthorityException.class);
  }

  @Test
  void allowListWithAllowNoOriginPassesCallsWithoutOrigin() {
    AuthorityRule rule = AuthorityRule.allow("r", "appA").withAllowNoOrigin(true);
    assertThat(rule.allowNoOrigin()).isTrue();
    assertThat(rule.withAllowNoOrigin(true)).isSameAs(rule);
    assertThat(rule.withShadow(true).allowNoOrigin()).as("kept by the other wither").isTrue();
    assertThat(new AuthorityRule("r", AuthorityStrategy.WHITE, List.of("appA"), false).allowNoOrigin())
        .as("the constructors without it").isFalse();
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.empty().withAuthority(List.of(rule))).build();
    assertThat(Calls.tryOnce(weir, "r")).as("no origin").isNull();
    assertThat(weir.callInContext("c", "appC", () -> Calls.tryOnce(weir, "r"))).isInstanceOf(AuthorityException.class);
  }

  @Test
  void denyListPassesCallsWithoutOrigin() {
    Weir weir = Weir.builder().ticker(ticker)
        .rules(RuleSet.empty().withAuthority(List.of(AuthorityRule.deny("r", "bad")))).build();
    assertThat(Calls.tryOnce(weir, "r")).as("no origin").isNull();
  }

  @Test
  void denyListRefusesListedOrigins() {
    Weir weir = Weir.builder().ticker(ticker)
        .rules(RuleSet.empty().withAuthority(List.of(AuthorityRule.deny("r", "bad")))).build();
    assertThat(weir.callInContext("c", "bad", () -> Calls.tryOnce(weir, "r"))).isInstanceOf(AuthorityException.class);
    assertThat(weir.callInContext("c", "good", () -> Calls.tryOnce(weir, "r"))).isNull();
    assertThat(weir.statistics("r").totalBlocked(RuleKind.AUTHORITY)).isEqualTo(1);
  }

  /** Load and CPU the test sets. */
  static final class FixedStatus implements SystemStatus {
    volatile double load;
    volatile double cpu;

    @Override
    public double loadAverage() {
      return load;
    }

    @Override
    public double cpuUsage() {
      return cpu;
    }
  }

  private Weir system(SystemRule rule, FixedStatus status) {
    return Weir.builder().ticker(ticker).systemStatus(status).systemRule(rule).build();
  }

  @Test
  void maxQpsAppliesToInboundCallsOnly() {
    try (Weir weir = system(new SystemRule(3.0, null, null, null, null), new FixedStatus())) {
      int inbound = 0;
      for (int i = 0; i < 10; i++) {
        try (Entry entry = weir.entry("in-" + (i % 2), EntryType.IN)) {
          inbound++;
        } catch (SystemBlockException refused) {
          assertThat(refused.rule()).isInstanceOf(SystemRule.class);
        }
      }
      assertThat(inbound).as("counted over all inbound resources together").isEqualTo(3);
      assertThat(Calls.admitted(weir, "out", 10)).isEqualTo(10);
    }
  }

  @Test
  void maxThreadsCountsInboundCallsInside() {
    try (Weir weir = system(new SystemRule(null, 2, null, null, null), new FixedStatus())) {
      Entry a = weir.entry("a", EntryType.IN);
      Entry b = weir.entry("b", EntryType.IN);
      assertThatThrownBy(() -> weir.entry("c", EntryType.IN)).isInstanceOf(SystemBlockException.class);
      b.close();
      weir.entry("c", EntryType.IN).close();
      a.close();
    }
  }

  @Test
  void maxAvgRtRefusesWhileInboundCallsAreSlow() {
    try (Weir weir = system(new SystemRule(null, null, Duration.ofMillis(50), null, null), new FixedStatus())) {
      try (Entry slow = weir.entry("a", EntryType.IN)) {
        ticker.advance(Duration.ofMillis(80));
      }
      assertThatThrownBy(() -> weir.entry("a", EntryType.IN)).isInstanceOf(SystemBlockException.class);
      ticker.advance(Duration.ofSeconds(1));
      weir.entry("a", EntryType.IN).close();
    }
  }

  @Test
  void loadRefusesOnlyWhenMoreCallsAreInsideThanTheServiceCompletes() {
    FixedStatus status = new FixedStatus();
    try (Weir weir = system(new SystemRule(null, null, null, 4.0, null), status)) {
      // Establish capacity: 10 calls of 100 ms complete in one 500 ms bucket: a best rate of 20/s,
      // times a minimal response time of 0.1 s, means 2 calls inside is what the service sustains.
      List<Entry> warmUp = new java.util.ArrayList<>();
      for (int i = 0; i < 10; i++) {
        warmUp.add(weir.entry("a", EntryType.IN));
      }
      ticker.advance(Duration.ofMillis(100));
      for (int i = warmUp.size() - 1; i >= 0; i--) {
        warmUp.get(i).close();
      }
      status.load = 9;
      weir.sampleSystemNow();
      Entry one = weir.entry("a", EntryType.IN);
      Entry two = weir.entry("a", EntryType.IN);
      Entry three = weir.entry("a", EntryType.IN); // 2 inside <= capacity of 2: still admitted
      assertThatThrownBy(() -> weir.entry("a", EntryType.IN)).as("3 inside > 2")
          .isInstanceOf(SystemBlockException.class);
      status.load = 1;
      weir.sampleSystemNow();
      weir.entry("a", EntryType.IN).close();
      three.close();
      two.close();
      one.close();
    }
  }

  @Test
  void loadAloneNeverRefusesAnIdleService() {
    FixedStatus status = new FixedStatus();
    status.load = 100;
    try (Weir weir = system(new SystemRule(null, null, null, 1.0, null), status)) {
      assertThat(Calls.admitted(weir, "in", 1)).isEqualTo(1);
      try (Entry entry = weir.entry("a", EntryType.IN)) {
        assertThat(entry).isNotNull(); // one call inside: BBR never refuses the second
      }
    }
  }

  @Test
  void cpuUsageRefusesAboveTheFraction() {
    FixedStatus status = new FixedStatus();
    try (Weir weir = system(new SystemRule(null, null, null, null, 0.8), status)) {
      status.cpu = 0.81;
      weir.sampleSystemNow();
      assertThatThrownBy(() -> weir.entry("a", EntryType.IN)).isInstanceOf(SystemBlockException.class);
      status.cpu = 0.8;
      weir.sampleSystemNow();
      weir.entry("a", EntryType.IN).close();
    }
  }

  @Test
  void samplerRunsOnlyWhileNeededAndStopsWithTheEngine() {
    FixedStatus status = new FixedStatus();
    awaitNoSampler(); // an engine of an earlier test may still be ending its sampler
    Weir weir = Weir.builder().ticker(ticker).systemStatus(status).build();
    assertThat(samplerThreads()).isZero();
    weir.rules().replaceSystemRule(new SystemRule(null, null, null, null, 0.9));
    assertThat(samplerThreads()).isEqualTo(1);
    weir.rules().replaceSystemRule(new SystemRule(100.0, null, null, null, null));
    awaitNoSampler();
    weir.rules().replaceSystemRule(new SystemRule(null, null, null, 3.0, null));
    weir.close();
    awaitNoSampler();
  }

  @Test
  void invalidSystemRuleIsRefused() {
    Weir weir = Weir.builder().ticker(ticker).build();
    assertThatThrownBy(() -> weir.rules().replaceSystemRule(new SystemRule(-1.0, null, null, null, 1.5)))
        .isInstanceOf(InvalidRulesException.class)
        .hasMessageContaining("max-qps").hasMessageContaining("max-cpu-usage");
    assertThat(weir.rules().systemRule()).isEqualTo(SystemRule.NONE);
  }

  private static long samplerThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().equals("weir-system-sampler") && t.isAlive()).count();
  }

  private static void awaitNoSampler() {
    long deadline = System.nanoTime() + 5_000_000_000L;
    while (samplerThreads() > 0 && System.nanoTime() < deadline) {
      Thread.onSpinWait();
    }
    assertThat(samplerThreads()).isZero();
  }
}
