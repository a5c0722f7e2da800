package dev.weir.spring.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.DegradeRule;
import dev.weir.rule.DegradeStrategy;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A rule source's write is one read-modify-write step of the engine: a change made meanwhile by
 * code ({@code weir.rules().update(...)}) to a kind no source gives is never overwritten with the
 * value read before it. On the code before this test, an endpoint write read the resource's rules
 * and replaced them in a second step, and code's increments of a degrade rule were lost within a few
 * hundred writes, every run.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RuleSourceRaceTests {

  private static final int UPDATES = 600;

  @Test
  void noChangeMadeByCodeIsLostToAConcurrentEndpointWrite() {
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class))
        .withPropertyValues("weir.flow[0].resource=r", "weir.flow[0].count=10")
        .run(context -> {
          assertThat(context).hasNotFailed();
          Weir weir = context.getBean(Weir.class);
          RuleSources sources = context.getBean(RuleSources.class);
          weir.rules().update("r", rules -> rules.withDegrade(List.of(degrade(1))));
          CyclicBarrier start = new CyclicBarrier(2);
          CompletableFuture<Void> code = CompletableFuture.runAsync(() -> {
            await(start);
            for (int i = 0; i < UPDATES; i++) {
              // one increment of a kind no source gives, made by the application's code
              weir.rules().update("r", rules -> rules.withDegrade(
                  List.of(degrade(rules.degrade().get(0).minRequestAmount() + 1))));
            }
          });
          CompletableFuture<Void> endpoint = CompletableFuture.runAsync(() -> {
            await(start);
            for (int i = 0; i < UPDATES; i++) {
              sources.write("r", Set.of(RuleKind.FLOW), RuleSet.of(FlowRule.qps("r", 100 + i)));
            }
          });
          CompletableFuture.allOf(code, endpoint).get(50, TimeUnit.SECONDS);
          RuleSet rules = weir.rules().rules("r");
          assertThat(rules.degrade().get(0).minRequestAmount()).as("every increment made by code kept")
              .isEqualTo(1 + UPDATES);
          assertThat(rules.flow().get(0).count()).as("the endpoint's last write in force").isEqualTo(100 + UPDATES - 1);
        });
  }

  private static DegradeRule degrade(int minRequestAmount) {
    return DegradeRule.builder("r").strategy(DegradeStrategy.ERROR_COUNT).threshold(3)
        .minRequestAmount(minRequestAmount).build();
  }

  private static void await(CyclicBarrier barrier) {
    try {
      barrier.await(10, TimeUnit.SECONDS);
    } catch (Exception interrupted) {
      throw new IllegalStateException(interrupted);
    }
  }
}
