package dev.weir.spring.reactive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.BlockException;
import dev.weir.Entry;
import dev.weir.FlowException;
import dev.weir.Weir;
import dev.weir.rule.FlowGrade;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleSet;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A waiting {@code threads} rule never parks a thread that must not block: on a Reactor
 * non-blocking thread the call over the limit is refused at once, while a blocking-capable thread
 * (bounded elastic) waits as the rule says. The rule waits 10 minutes, so a parked event loop
 * would hit the test's timeout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WaitingBulkheadOnEventLoopTests {

  @Test
  void anEventLoopIsRefusedAtOnceAndABoundedElasticThreadWaits() throws Exception {
    Weir weir = Weir.builder().rules(RuleSet.of(FlowRule.builder("r").grade(FlowGrade.THREADS).count(1)
        .maxQueueingTime(Duration.ofMinutes(10)).build())).build();
    Entry holder = weir.entry("r");
    Throwable refused = Mono.fromCallable(() -> {
      try (Entry entry = weir.entry("r")) {
        return (Throwable) null;
      } catch (BlockException blocked) {
        return blocked;
      }
    }).subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30));
    assertThat(refused).isInstanceOf(FlowException.class);
    assertThat(weir.statistics("r").waitingCalls()).isZero();

    var waited = Mono.fromCallable(() -> {
      try (Entry entry = weir.entry("r")) {
        return "admitted";
      }
    }).subscribeOn(Schedulers.boundedElastic()).toFuture();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (weir.statistics("r").waitingCalls() == 0) {
      assertThat(System.nanoTime() - deadline).isNegative();
      Thread.sleep(1);
    }
    holder.close();
    assertThat(waited.get(20, TimeUnit.SECONDS)).isEqualTo("admitted");
    assertThat(weir.statistics("r").activeCalls()).isZero();
  }
}
