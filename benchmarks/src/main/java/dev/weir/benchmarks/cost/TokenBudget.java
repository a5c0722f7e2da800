package dev.weir.benchmarks.cost;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.Resource;
import dev.weir.Sleeper;
import dev.weir.Ticker;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * Overshoot of a token budget by calls whose cost is known only after them (issue 39): a fleet of
 * {@value #CLIENTS} clients shares one budget of {@value #BUDGET} tokens a minute (a rule of
 * {@code interval: 60s}, the sliding window, then {@code exact: true}) in one engine on driven time. Each client calls back to back; a call's
 * cost in tokens is drawn from a Pareto distribution (minimum {@value #MIN_TOKENS}, alpha
 * {@value #ALPHA}, at most {@value #MAX_TOKENS}; the seed is fixed), and it lasts one second plus one
 * second per {@value #TOKENS_PER_SECOND} tokens. A refused client retries after the refusal's
 * {@code retryAfter} (at least 100 ms). Every call settles at its actual cost when it ends.
 *
 * <p>Three ways to take the cost, on the same draws:
 * <ul>
 *   <li><b>fixed</b>: each call takes a fixed estimate ({@value #FIXED_ESTIMATE} tokens) and settles;
 *   <li><b>adaptive</b>: each call takes {@link Resource#costEstimate} (the running p95 of settled
 *       costs) and settles;
 *   <li><b>after the fact</b>: each call takes 1 token and settles at its cost: all of it a debt.
 * </ul>
 * Tokens are counted when a call ends (when its answer is known) and, apart, when it starts (as a
 * provider that counts a request when it comes would). The table gives the most tokens any 60 s
 * span held (at 100 ms steps) against the budget, counted either way, the share of 60 s spans above
 * it (at the calls' end), the tokens used per minute on average, and the calls and refusals.
 *
 * <pre>
 * java -cp benchmarks/target-bench/weir-benchmarks.jar dev.weir.benchmarks.cost.TokenBudget [minutes]
 * </pre>
 */
public final class TokenBudget {

  static final int CLIENTS = 16;
  static final long BUDGET = 100_000; // the most an exact rule keeps
  static final long MIN_TOKENS = 200;
  static final double ALPHA = 1.5;
  static final long MAX_TOKENS = 32_000;
  static final long TOKENS_PER_SECOND = 1_000;
  static final int FIXED_ESTIMATE = 1_000;
  static final long SEED = 39;
  static final long MS = 1_000_000L;
  static final long SECOND = 1_000 * MS;
  static final long STEP = 100 * MS;

  enum Mode { FIXED, ADAPTIVE, AFTER_THE_FACT }

  /** Driven time: the engine reads it, nothing sleeps (no rule here waits). */
  static final class DrivenTime implements Ticker, Sleeper {
    long now;

    @Override
    public long read() {
      return now;
    }

    @Override
    public void sleep(long nanos) {
      now += nanos;
    }
  }

  record Event(long at, int client, Entry entry, long cost) { }

  record Result(Mode mode, boolean exact, long mostInSpan, double spansOver, long mostByStart, double perMinute, long refusals,
      long calls) { }

  static Result run(Mode mode, boolean exact, long minutes) {
    DrivenTime time = new DrivenTime();
    Weir weir = Weir.builder().ticker(time).sleeper(time).clockResolution(Duration.ZERO)
        .rules(RuleSet.of(FlowRule.builder("llm").count(BUDGET).interval(Duration.ofSeconds(60))
        .exact(exact).build())).build();
    Resource llm = weir.resource("llm");
    SplittableRandom random = new SplittableRandom(SEED);
    PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.at != b.at ? Long.compare(a.at, b.at)
        : Integer.compare(a.client, b.client));
    for (int c = 0; c < CLIENTS; c++) {
      events.add(new Event(c * MS, c, null, 0));
    }
    long end = minutes * 60 * SECOND;
    long[] byStep = new long[(int) (end / STEP) + 1];
    long[] byStart = new long[byStep.length]; // the same tokens, counted when their call started
    long refusals = 0;
    long calls = 0;
    long[] costs = new long[CLIENTS]; // each client's next cost: the same draws for every mode
    for (int c = 0; c < CLIENTS; c++) {
      costs[c] = pareto(random);
    }
    while (!events.isEmpty()) {
      Event e = events.poll();
      if (e.at >= end) {
        break;
      }
      time.now = e.at;
      if (e.entry != null) { // the call ends: its tokens are spent now
        e.entry.settle(e.cost);
        e.entry.close();
        byStep[(int) (e.at / STEP)] += e.cost;
        costs[e.client] = pareto(random);
        events.add(new Event(e.at, e.client, null, 0));
        continue;
      }
      int estimate = switch (mode) {
        case FIXED -> FIXED_ESTIMATE;
        case ADAPTIVE -> (int) Math.max(1, Math.min(Integer.MAX_VALUE, llm.costEstimate(FIXED_ESTIMATE)));
        case AFTER_THE_FACT -> 1;
      };
      try {
        Entry entry = llm.asyncEntry(EntryType.OUT, estimate);
        calls++;
        long cost = costs[e.client];
        byStart[(int) (e.at / STEP)] += cost;
        events.add(new Event(e.at + SECOND + cost * SECOND / TOKENS_PER_SECOND, e.client, entry, cost));
      } catch (BlockException refused) {
        refusals++;
        long wait = Math.max(100 * MS, refused.retryAfter().toNanos());
        events.add(new Event(e.at + wait, e.client, null, 0));
      }
    }
    long[] spanned = spans(byStep);
    return new Result(mode, exact, spanned[0], (double) spanned[1] / spanned[2], spans(byStart)[0],
        spanned[3] / (double) minutes, refusals, calls);
  }

  /** Over every 60 s span of {@code byStep}: the most tokens, the spans over budget, the spans, the total. */
  static long[] spans(long[] byStep) {
    int span = (int) (60 * SECOND / STEP);
    long most = 0;
    long over = 0;
    long spans = 0;
    long total = 0;
    long inSpan = 0;
    for (int i = 0; i < byStep.length; i++) {
      inSpan += byStep[i];
      total += byStep[i];
      if (i >= span) {
        inSpan -= byStep[i - span];
      }
      if (i >= span - 1) {
        spans++;
        most = Math.max(most, inSpan);
        if (inSpan > BUDGET) {
          over++;
        }
      }
    }
    return new long[] {most, over, spans, total};
  }

  static long pareto(SplittableRandom random) {
    double u = 1 - random.nextDouble();
    return (long) Math.min(MAX_TOKENS, Math.ceil(MIN_TOKENS * Math.pow(u, -1 / ALPHA)));
  }

  public static void main(String[] args) {
    long minutes = args.length > 0 ? Long.parseLong(args[0]) : 60;
    List<Result> results = new ArrayList<>();
    for (boolean exact : new boolean[] {false, true}) {
      for (Mode mode : Mode.values()) {
        results.add(run(mode, exact, minutes));
      }
    }
    System.out.printf(Locale.ROOT, "%d clients, budget %,d tokens / 60 s, costs Pareto(min %d, alpha %.1f, max %,d), "
        + "seed %d, %d simulated minutes%n%n", CLIENTS, BUDGET, MIN_TOKENS, ALPHA, MAX_TOKENS, SEED, minutes);
    System.out.println("| rule | estimate | most tokens in a 60 s span (at their call's end) | vs budget | 60 s spans over"
        + " budget | most in a 60 s span, at their call's start | vs budget | tokens per minute | calls | refusals |");
    System.out.println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    for (Result r : results) {
      String name = switch (r.mode) {
        case FIXED -> "fixed (" + FIXED_ESTIMATE + ")";
        case ADAPTIVE -> "adaptive (p95)";
        case AFTER_THE_FACT -> "after the fact (1)";
      };
      System.out.printf(Locale.ROOT, "| %s | %s | %,d | %.2fx | %.1f %% | %,d | %.2fx | %,.0f | %,d | %,d |%n", r.exact ? "exact" : "sliding window", name,
          r.mostInSpan, (double) r.mostInSpan / BUDGET, 100 * r.spansOver, r.mostByStart,
          (double) r.mostByStart / BUDGET, r.perMinute, r.calls, r.refusals);
    }
  }
}
