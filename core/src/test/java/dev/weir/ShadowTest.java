package dev.weir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weir.rule.AuthorityRule;
import dev.weir.rule.ControlBehavior;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.rule.ResourceRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.rule.SystemRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Shadow mode, deterministically: the same scripted traffic (the same ticker readings, the same
 * origins, arguments, failures and durations) goes to an engine with a rule in force and to an engine
 * with the same rule in shadow mode; the shadow engine refuses nothing and counts, per kind, exactly
 * the permits the real engine refused. Then: switching shadow mode off keeps the rule's state, a
 * shadow queue never sleeps, and the log reports at most once a second with the count since.
 */
class ShadowTest {

  private static final long MS = 1_000_000L;
  private static final long START = -7_777_777_777_777L;

  /** One call of the script: when it comes, who calls, with what, and how it ends. */
  private record Step(long gapNanos, String origin, Object argument, int permits, boolean fails, long durationNanos) {
  }

  /** What an engine made of a script. */
  private record Outcome(long refused, long shadowRefused, long passed, long refusedInAll) {
  }

  private final List<String> logLines = new ArrayList<>();
  private final Handler capture = new Handler() {
    @Override
    public void publish(LogRecord record) {
      synchronized (logLines) {
        logLines.add(record.getMessage());
      }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }
  };

  @BeforeEach
  void captureLog() {
    Logger.getLogger(Weir.class.getName()).addHandler(capture);
  }

  @AfterEach
  void releaseLog() {
    Logger.getLogger(Weir.class.getName()).removeHandler(capture);
  }

  // --- shadow counts exactly what a real rule would have refused ---

  @Test
  void flowRejectCountsExactlyTheRealRefusals() {
    assertSameCounts(FlowRule.qps("r", 20), RuleKind.FLOW, traffic(1, 600, 60, false));
  }

  @Test
  void flowRejectWithSeveralPermitsPerCallCountsPermits() {
    assertSameCounts(FlowRule.builder("r").count(30).interval(Duration.ofMillis(500)).build(), RuleKind.FLOW,
        traffic(2, 600, 40, false));
  }

  @Test
  void flowWarmUpCountsExactlyTheRealRefusals() {
    FlowRule rule = FlowRule.builder("r").count(40).controlBehavior(ControlBehavior.WARM_UP)
        .warmUpPeriod(Duration.ofSeconds(2)).coldFactor(3).build();
    assertSameCounts(rule, RuleKind.FLOW, traffic(3, 800, 40, true));
  }

  @Test
  void flowQueueCountsExactlyTheRealRefusalsAndNeverSleeps() {
    FlowRule rule = FlowRule.builder("r").count(20).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(Duration.ofMillis(200)).build();
    assertSameCounts(rule, RuleKind.FLOW, traffic(4, 600, 50, true));
  }

  @Test
  void flowWarmUpQueueCountsExactlyTheRealRefusalsAndNeverSleeps() {
    FlowRule rule = FlowRule.builder("r").count(30).controlBehavior(ControlBehavior.WARM_UP_QUEUE)
        .warmUpPeriod(Duration.ofSeconds(1)).maxQueueingTime(Duration.ofMillis(100)).build();
    assertSameCounts(rule, RuleKind.FLOW, traffic(5, 600, 40, true));
  }

  @Test
  void flowPerOriginCountsExactlyTheRealRefusals() {
    assertSameCounts(FlowRule.builder("r").count(5).limitApp(FlowRule.LIMIT_APP_OTHER).build(), RuleKind.FLOW,
        traffic(6, 600, 40, false));
  }

  @Test
  void paramFlowCountsExactlyTheRealRefusalsAlsoForCollections() {
    ParamFlowRule rule = ParamFlowRule.builder("r").paramIndex(0).count(4).burst(1).build();
    assertSameCounts(rule, RuleKind.PARAM_FLOW, traffic(7, 800, 30, false));
  }

  @Test
  void paramFlowQueueCountsExactlyTheRealRefusals() {
    ParamFlowRule rule = ParamFlowRule.builder("r").paramIndex(0).count(5).controlBehavior(ControlBehavior.QUEUE)
        .maxQueueingTime(Duration.ofMillis(300)).build();
    assertSameCounts(rule, RuleKind.PARAM_FLOW, traffic(8, 800, 30, false));
  }

  @Test
  void errorRatioBreakerCountsExactlyTheRealRefusals() {
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_RATIO).threshold(0.4)
        .minRequestAmount(5).statInterval(Duration.ofSeconds(1)).openDuration(Duration.ofMillis(700)).build();
    assertSameCounts(rule, RuleKind.DEGRADE, traffic(9, 1_500, 30, false));
  }

  @Test
  void slowRatioBreakerCountsExactlyTheRealRefusals() {
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.SLOW_RATIO).threshold(0.3)
        .slowCallThreshold(Duration.ofMillis(15)).minRequestAmount(4).statInterval(Duration.ofMillis(500))
        .openDuration(Duration.ofMillis(400)).build();
    assertSameCounts(rule, RuleKind.DEGRADE, traffic(10, 1_500, 30, false));
  }

  @Test
  void authorityCountsExactlyTheRealRefusals() {
    assertSameCounts(AuthorityRule.allow("r", "a", "b"), RuleKind.AUTHORITY, traffic(11, 300, 30, false));
  }

  /**
   * The script: {@code calls} calls with gaps of 0 to {@code maxGapMs} ms (and, when
   * {@code idles}, an idle second now and then, so warm-up cools down), from origins a to d or
   * none, with an argument a to e or a list of two of them, 1 to 3 permits for seed 2, failing and
   * slow in runs (so breakers open and close again).
   */
  private static List<Step> traffic(long seed, int calls, int maxGapMs, boolean idles) {
    Random random = new Random(seed);
    String[] origins = {"a", "b", "c", "d", ""};
    String[] values = {"a", "b", "c", "d", "e"};
    List<Step> steps = new ArrayList<>();
    boolean badRun = false;
    for (int i = 0; i < calls; i++) {
      long gap = random.nextInt(maxGapMs + 1) * MS + random.nextInt(1000);
      if (idles && random.nextInt(100) == 0) {
        gap += 1_000 * MS;
      }
      if (random.nextInt(25) == 0) {
        badRun = !badRun;
      }
      Object argument = random.nextInt(4) == 0
          ? List.of(values[random.nextInt(values.length)], values[random.nextInt(values.length)])
          : values[random.nextInt(values.length)];
      int permits = seed == 2 ? 1 + random.nextInt(3) : 1;
      boolean fails = badRun ? random.nextInt(10) < 7 : random.nextInt(10) == 0;
      long duration = (badRun ? 10 + random.nextInt(20) : random.nextInt(12)) * MS;
      steps.add(new Step(gap, origins[random.nextInt(origins.length)], argument, permits, fails, duration));
    }
    return steps;
  }

  private void assertSameCounts(ResourceRule rule, RuleKind kind, List<Step> script) {
    AtomicLong realSlept = new AtomicLong();
    AtomicLong shadowSlept = new AtomicLong();
    Outcome real = run(rule, script, realSlept);
    Outcome shadow = run(rule.withShadow(true), script, shadowSlept);

    assertThat(real.refused()).as("the real rule refused some calls").isPositive();
    assertThat(real.passed()).as("and admitted others").isPositive();
    assertThat(shadow.refusedInAll()).as("a shadow rule refuses nothing").isZero();
    assertThat(shadow.shadowRefused()).as("shadow refusals of %s", rule).isEqualTo(real.refused());
    assertThat(real.shadowRefused()).isZero();
    assertThat(shadowSlept.get()).as("calls of a shadow rule never wait").isZero();
    if (rule instanceof FlowRule flow && flow.controlBehavior() != ControlBehavior.REJECT
        && flow.controlBehavior() != ControlBehavior.WARM_UP) {
      assertThat(realSlept.get()).as("the real queue made calls wait").isPositive();
    }
  }

  /**
   * Runs the script on a fresh engine with {@code rule}, its clock moved by the script only: a call
   * takes its duration on the clock whether it was admitted or not, so both engines read the same
   * times; waiting does not move the clock (the sleeper only adds up the waits).
   */
  private static Outcome run(ResourceRule rule, List<Step> script, AtomicLong slept) {
    FakeTicker ticker = new FakeTicker(START);
    try (Weir weir = Weir.builder().ticker(ticker).sleeper(slept::addAndGet).rules(RuleSet.of(rule)).build()) {
      for (Step step : script) {
        ticker.advanceNanos(step.gapNanos());
        weir.runInContext("ctx", step.origin(), () -> {
          try (Entry entry = weir.entry("r", EntryType.IN, step.permits(), step.argument())) {
            ticker.advanceNanos(step.durationNanos());
            if (step.fails()) {
              entry.recordError(new IllegalStateException("failed"));
            }
          } catch (BlockException refused) {
            ticker.advanceNanos(step.durationNanos());
          }
        });
      }
      ResourceStatistics statistics = weir.statistics("r");
      return new Outcome(statistics.totalBlocked(rule.kind()), statistics.totalShadowBlocked(rule.kind()),
          statistics.totalPassed(), statistics.totalBlocked());
    }
  }

  // --- switching shadow mode off keeps the state ---

  @Test
  void switchingAFlowRuleOutOfShadowKeepsItsWindow() {
    FakeTicker ticker = new FakeTicker();
    FlowRule rule = FlowRule.qps("r", 5);
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(rule.withShadow(true))).build();
    assertThat(Calls.admitted(weir, "r", 8)).isEqualTo(8);
    assertThat(weir.statistics("r").totalShadowBlocked(RuleKind.FLOW)).isEqualTo(3);

    weir.rules().replace("r", RuleSet.of(rule));
    assertThat(Calls.tryOnce(weir, "r")).as("the window of the shadow rule is full, and stays so")
        .isInstanceOf(FlowException.class);
    ticker.advance(Duration.ofSeconds(1));
    assertThat(Calls.admitted(weir, "r", 8)).isEqualTo(5);
    assertThat(weir.statistics("r").totalShadowBlocked(RuleKind.FLOW)).isEqualTo(3);
  }

  @Test
  void switchingAWarmUpRuleOutOfShadowKeepsItsWarmth() {
    FlowRule rule = FlowRule.builder("r").count(10).controlBehavior(ControlBehavior.WARM_UP)
        .warmUpPeriod(Duration.ofSeconds(5)).build();
    int switched = admittedAfterWarmingUp(rule.withShadow(true), rule);
    int alwaysReal = admittedAfterWarmingUp(rule, rule);
    int cold = admittedAfterWarmingUp(null, rule);
    assertThat(switched).as("as warm as a rule that was never in shadow mode").isEqualTo(alwaysReal);
    assertThat(cold).as("a fresh rule would start cold").isLessThan(alwaysReal);
  }

  /**
   * Calls every 20 ms for 8 s under {@code warming} (none when null), then puts {@code rule} in
   * force and returns how many of 20 calls 50 ms apart it admits.
   */
  private static int admittedAfterWarmingUp(FlowRule warming, FlowRule rule) {
    FakeTicker ticker = new FakeTicker();
    Weir weir = Weir.builder().ticker(ticker).sleeper(nanos -> { })
        .rules(RuleSet.of(warming != null ? warming : rule)).build();
    if (warming != null) {
      for (int i = 0; i < 400; i++) {
        ticker.advance(Duration.ofMillis(20));
        Calls.tryOnce(weir, "r");
      }
    }
    weir.rules().replace("r", RuleSet.of(rule));
    int admitted = 0;
    for (int i = 0; i < 20; i++) {
      ticker.advance(Duration.ofMillis(50));
      admitted += Calls.tryOnce(weir, "r") == null ? 1 : 0;
    }
    return admitted;
  }

  @Test
  void switchingABreakerOutOfShadowKeepsItOpen() {
    FakeTicker ticker = new FakeTicker();
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_COUNT).threshold(2)
        .minRequestAmount(1).openDuration(Duration.ofSeconds(5)).build();
    List<String> transitions = new ArrayList<>();
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(rule.withShadow(true)))
        .circuitBreakerListener(
            (r, from, to, reason) -> transitions.add(from + "->" + to + (r.shadow() ? " shadow" : "")))
        .build();
    for (int i = 0; i < 3; i++) {
      failOnce(weir);
    }
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
    assertThat(Calls.tryOnce(weir, "r")).as("an open breaker in shadow mode admits").isNull();
    assertThat(weir.statistics("r").totalShadowBlocked(RuleKind.DEGRADE)).isEqualTo(1);

    weir.rules().replace("r", RuleSet.of(rule));
    assertThatThrownBy(() -> weir.entry("r")).isInstanceOf(DegradeException.class);
    ticker.advance(Duration.ofSeconds(5));
    assertThat(Calls.tryOnce(weir, "r")).as("the probe").isNull();
    assertThat(transitions).containsExactly("CLOSED->OPEN shadow", "OPEN->HALF_OPEN", "HALF_OPEN->CLOSED");
  }

  @Test
  void aCallLetThroughAnOpenShadowBreakerIsNotJudgedByIt() throws InterruptedException {
    FakeTicker ticker = new FakeTicker();
    DegradeRule rule = DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_COUNT).threshold(0)
        .minRequestAmount(1).openDuration(Duration.ofSeconds(1)).shadow(true).build();
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(rule)).build();
    failOnce(weir);
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.OPEN);
    ticker.advance(Duration.ofSeconds(1));
    Entry probe = weir.entry("r");
    Entry passedHalfOpen = weir.entry("r"); // at the probe's reading: a breaker in force would refuse it
    assertThat(weir.statistics("r").totalShadowBlocked(RuleKind.DEGRADE)).isEqualTo(1);
    closeOnAnotherThread(probe); // the breaker closes at this same reading
    assertThat(weir.statistics("r").circuitState()).isEqualTo(CircuitState.CLOSED);
    passedHalfOpen.recordError(new IllegalStateException("down"));
    passedHalfOpen.close();
    assertThat(weir.statistics("r").circuitState()).as("a failure the breaker never let through in force")
        .isEqualTo(CircuitState.CLOSED);
  }

  @Test
  void switchingIntoShadowAndBackKeepsParamFlowState() {
    FakeTicker ticker = new FakeTicker();
    ParamFlowRule rule = ParamFlowRule.builder("r").count(2).build();
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(rule)).build();
    assertThat(admittedWith(weir, "k", 3)).isEqualTo(2);
    weir.rules().replace("r", RuleSet.of(rule.withShadow(true)));
    assertThat(admittedWith(weir, "k", 2)).isEqualTo(2);
    assertThat(weir.statistics("r").totalShadowBlocked(RuleKind.PARAM_FLOW)).isEqualTo(2);
    weir.rules().replace("r", RuleSet.of(rule));
    assertThat(admittedWith(weir, "k", 1)).as("the value's bucket is still empty").isZero();
  }

  @Test
  void aShadowRuleDoesNotStopTheOthers() {
    FakeTicker ticker = new FakeTicker();
    Weir weir = Weir.builder().ticker(ticker)
        .rules(RuleSet.of(FlowRule.qps("r", 1).withShadow(true), FlowRule.qps("r", 3))).build();
    assertThat(Calls.admitted(weir, "r", 5)).isEqualTo(3);
    ResourceStatistics statistics = weir.statistics("r");
    assertThat(statistics.totalBlocked(RuleKind.FLOW)).isEqualTo(2);
    assertThat(statistics.totalShadowBlocked(RuleKind.FLOW)).as("each call after the first, refused or not")
        .isEqualTo(4);
  }

  @Test
  void aShadowSystemRuleCountsOnTheResourceOfTheCall() {
    FakeTicker ticker = new FakeTicker();
    Weir weir = Weir.builder().ticker(ticker).systemRule(new SystemRule(null, 1, null, null, null, true)).build();
    Entry first = weir.entry("r", EntryType.IN);
    Entry second = weir.entry("r", EntryType.IN);
    second.close();
    first.close();
    assertThat(weir.statistics("r").totalShadowBlocked(RuleKind.SYSTEM)).isEqualTo(1);
    assertThat(weir.statistics("r").totalBlocked()).isZero();

    weir.rules().replaceSystemRule(new SystemRule(null, 1, null, null, null));
    try (Entry inside = weir.entry("r", EntryType.IN)) {
      assertThatThrownBy(() -> weir.entry("r", EntryType.IN)).isInstanceOf(SystemBlockException.class);
    }
  }

  // --- the log ---

  @Test
  void logsAtMostOnceASecondPerRuleWithTheCountSinceTheLastLine() {
    FakeTicker ticker = new FakeTicker();
    Weir weir = Weir.builder().ticker(ticker).rules(RuleSet.of(FlowRule.qps("r", 1).withShadow(true),
        AuthorityRule.deny("r", "x").withShadow(true))).build();
    Calls.admitted(weir, "r", 2);
    assertThat(lines()).containsExactly("Shadow flow rule of 'r' would have refused 1 permit since its last report;"
        + " they went on: FlowRule{resource=r, count=1.0, grade=QPS, interval=PT1S, control-behavior=REJECT, shadow}");

    ticker.advance(Duration.ofMillis(500));
    Calls.admitted(weir, "r", 10); // the window slid: 1 admitted, 9 would-be refusals, no line within the second
    assertThat(lines()).hasSize(1);
    ticker.advance(Duration.ofMillis(499));
    Calls.admitted(weir, "r", 5); // 5 more, still within the second of the first line
    assertThat(lines()).hasSize(1);
    assertThat(weir.statistics("r").totalShadowBlocked(RuleKind.FLOW)).isEqualTo(15);

    ticker.advance(Duration.ofMillis(1));
    Calls.admitted(weir, "r", 2); // a second after the first line: the first would-be refusal reports
    assertThat(lines()).hasSize(2);
    assertThat(lines().get(1)).startsWith("Shadow flow rule of 'r' would have refused 15 permits since its last"
        + " report");

    weir.runInContext("ctx", "x", () -> Calls.admitted(weir, "r", 3));
    assertThat(lines()).as("each rule reports on its own").hasSize(3);
    assertThat(lines().get(2)).startsWith("Shadow authority rule of 'r' would have refused 1 permit");
    assertThat(weir.statistics("r").totalShadowBlocked(RuleKind.AUTHORITY)).isEqualTo(3);
    assertThat(weir.statistics("r").totalShadowBlocked(RuleKind.FLOW)).as("15, 2, and 3 from x").isEqualTo(20);
  }

  private List<String> lines() {
    synchronized (logLines) {
      return logLines.stream().filter(line -> line.startsWith("Shadow")).toList();
    }
  }

  /** Closes an entry that is not the newest of this thread, as another thread may. */
  private static void closeOnAnotherThread(Entry entry) throws InterruptedException {
    Thread closer = new Thread(entry::close);
    closer.start();
    closer.join();
  }

  private static void failOnce(Weir weir) {
    try (Entry entry = weir.entry("r")) {
      entry.recordError(new IllegalStateException("down"));
    }
  }

  private static int admittedWith(Weir weir, Object argument, int attempts) {
    int admitted = 0;
    for (int i = 0; i < attempts; i++) {
      try (Entry entry = weir.entry("r", EntryType.OUT, 1, argument)) {
        admitted++;
      } catch (BlockException refused) {
        // counted by the engine
      }
    }
    return admitted;
  }
}
