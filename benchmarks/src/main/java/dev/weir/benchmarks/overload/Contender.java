package dev.weir.benchmarks.overload;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.weir.BlockException;
import dev.weir.Criticality;
import dev.weir.Entry;
import dev.weir.EntryType;
import dev.weir.ResourceStatistics;
import dev.weir.Ticker;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * One admission policy in front of the simulated service: it admits a request or refuses it, and is
 * told when an admitted request completes. Every contender reads the harness's driven clock.
 */
abstract class Contender {

  final String name;

  Contender(String name) {
    this.name = name;
  }

  /** Admits {@code request} (keeping what it needs to release it) or refuses it. */
  abstract boolean admit(Simulation.Request request);

  /** The admitted {@code request} completed; {@code failed} when the service failed it. */
  abstract void complete(Simulation.Request request, boolean failed);

  /** The limit now, or -1 when there is none to show. */
  int limit() {
    return -1;
  }

  /** The bounds every adaptive contender gets in the "same bounds" runs. */
  static final int MIN = 1;
  static final int MAX = 1000;
  static final int INITIAL = 20;

  /** Makes a fresh contender of one kind, reading {@code clock}. */
  interface Kind {
    String name();

    Contender create(LongSupplier clock);
  }

  static Kind kind(String name, java.util.function.Function<LongSupplier, Contender> make) {
    return new Kind() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Contender create(LongSupplier clock) {
        return make.apply(clock);
      }
    };
  }

  /** Everything admitted. */
  static final class None extends Contender {
    None() {
      super("no limiter");
    }

    @Override
    boolean admit(Simulation.Request request) {
      return true;
    }

    @Override
    void complete(Simulation.Request request, boolean failed) {
    }
  }

  /** A fixed concurrency limit. */
  static final class Static extends Contender {
    private final int limit;
    private int inside;

    Static(int limit) {
      super("static limit " + limit);
      this.limit = limit;
    }

    @Override
    boolean admit(Simulation.Request request) {
      if (inside >= limit) {
        return false;
      }
      inside++;
      return true;
    }

    @Override
    void complete(Simulation.Request request, boolean failed) {
      inside--;
    }

    @Override
    int limit() {
      return limit;
    }
  }

  /** A Netflix concurrency-limits {@link SimpleLimiter} over {@code limit}, on the driven clock. */
  static final class Netflix extends Contender {
    private final SimpleLimiter<Void> limiter;
    private final Limit limit;

    Netflix(String name, Limit limit, LongSupplier clock) {
      super(name);
      this.limit = limit;
      this.limiter = SimpleLimiter.newBuilder().limit(limit).nanoClock(clock).build();
    }

    static Netflix gradient2(LongSupplier clock) {
      return new Netflix("Gradient2 (same bounds)", Gradient2Limit.newBuilder().minLimit(MIN).maxConcurrency(MAX)
          .initialLimit(INITIAL).build(), clock);
    }

    static Netflix gradient2Defaults(LongSupplier clock) {
      return new Netflix("Gradient2 (its defaults)", Gradient2Limit.newBuilder().build(), clock);
    }

    static Netflix vegas(LongSupplier clock) {
      return new Netflix("Vegas (same bounds)", VegasLimit.newBuilder().initialLimit(INITIAL).maxConcurrency(MAX)
          .build(), clock);
    }

    @Override
    boolean admit(Simulation.Request request) {
      Optional<Limiter.Listener> listener = limiter.acquire(null);
      if (listener.isEmpty()) {
        return false;
      }
      request.handle = listener.get();
      return true;
    }

    @Override
    void complete(Simulation.Request request, boolean failed) {
      Limiter.Listener listener = (Limiter.Listener) request.handle;
      if (failed) {
        listener.onDropped();
      } else {
        listener.onSuccess();
      }
    }

    @Override
    int limit() {
      return limit.getLimit();
    }
  }

  /** Weir's {@code grade: adaptive} rule, through a real engine on the driven clock. */
  static final class WeirAdaptive extends Contender {
    private static final String RESOURCE = "service";
    private final Weir weir;
    private final boolean criticality;

    WeirAdaptive(LongSupplier clock, boolean criticality) {
      super(criticality ? "Weir adaptive" : "Weir adaptive (no criticality)");
      Ticker ticker = clock::getAsLong;
      this.weir = Weir.builder().ticker(ticker).loadServiceSlots(false)
          .rules(RuleSet.of(FlowRule.adaptive(RESOURCE, MIN, MAX, INITIAL))).build();
      this.criticality = criticality;
    }

    @Override
    boolean admit(Simulation.Request request) {
      try {
        request.handle = weir.asyncEntry(RESOURCE, EntryType.IN, 1,
            criticality ? request.criticality : Criticality.CRITICAL, null);
        return true;
      } catch (BlockException refused) {
        return false;
      }
    }

    @Override
    void complete(Simulation.Request request, boolean failed) {
      Entry entry = (Entry) request.handle;
      if (failed) {
        entry.recordError(Simulation.FAILED);
      }
      entry.close();
    }

    @Override
    int limit() {
      ResourceStatistics statistics = weir.statistics(RESOURCE);
      return statistics == null ? -1 : statistics.adaptiveLimit();
    }
  }
}
