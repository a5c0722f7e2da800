package dev.weir.spring.rules;

import static dev.weir.spring.rules.Eventually.await;
import static dev.weir.spring.rules.Eventually.settled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.RuleKind;
import dev.weir.rule.RuleSet;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The contract's order of rule sources, decided in one place ({@link RuleSources}):
 * {@code application.yml}, the Sentinel files, the rule file, endpoint writes, each replacing the
 * rules of a resource and kind given before it; and a source that stops giving a resource and kind
 * hands it back to the one before.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RuleSourceOrderTests {

  @TempDir
  Path dir;

  private static double count(AssertableApplicationContext context, String resource) {
    List<FlowRule> flow = context.getBean(Weir.class).rules().rules(resource).flow();
    return flow.isEmpty() ? -1 : flow.get(0).count();
  }

  private static void write(Path file, String content) throws IOException {
    Path temp = Files.createTempFile(file.getParent(), ".edit", ".tmp");
    Files.writeString(temp, content);
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
  }

  @Test
  void eachSourceReplacesThoseBeforeItPerResourceAndKind() throws IOException {
    Path sentinel = dir.resolve("flow.json");
    Files.writeString(sentinel, "[{\"resource\": \"a\", \"count\": 20}, {\"resource\": \"b\", \"count\": 21},"
        + " {\"resource\": \"c\", \"count\": 22}]");
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, "flow:\n  - resource: a\n    count: 30\n  - resource: b\n    count: 31\n"
        + "cleared:\n  d: [flow]\n");
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class))
        .withPropertyValues("weir.rules.file=" + file, "weir.rules.sentinel.flow-file=" + sentinel,
            "weir.flow[0].resource=a", "weir.flow[0].count=10", "weir.flow[1].resource=b", "weir.flow[1].count=11",
            "weir.flow[2].resource=c", "weir.flow[2].count=12", "weir.flow[3].resource=d", "weir.flow[3].count=13",
            "weir.flow[4].resource=e", "weir.flow[4].count=14",
            "weir.degrade[0].resource=a", "weir.degrade[0].strategy=error-count", "weir.degrade[0].threshold=2")
        .run(context -> {
          assertThat(context).hasNotFailed();
          RuleSources sources = context.getBean(RuleSources.class);
          assertThat(sources.sourceNames()).containsExactly("application.yml", "sentinel:flow-file",
              "file:" + file.toAbsolutePath(), "endpoint");
          assertThat(count(context, "a")).as("the rule file over Sentinel over application.yml").isEqualTo(30);
          assertThat(count(context, "c")).as("Sentinel over application.yml").isEqualTo(22);
          assertThat(count(context, "d")).as("cleared by the rule file").isEqualTo(-1);
          assertThat(count(context, "e")).as("only application.yml").isEqualTo(14);
          assertThat(context.getBean(Weir.class).rules().rules("a").degrade()).as("a kind no later source gives")
              .hasSize(1);

          sources.write("b", Set.of(RuleKind.FLOW), RuleSet.of(FlowRule.qps("b", 41)));
          assertThat(count(context, "b")).as("an endpoint write over everything").isEqualTo(41);

          write(file, "flow:\n  - resource: b\n    count: 32\n");
          await("the file's new content applied", () -> count(context, "a") == 20);
          settled(sources); // the other resources of the edit follow a in the same check
          assertThat(count(context, "a")).as("a no longer in the file: back to Sentinel").isEqualTo(20);
          assertThat(count(context, "b")).as("the endpoint write still wins over the file").isEqualTo(41);
          assertThat(count(context, "d")).as("no longer cleared: back to application.yml").isEqualTo(13);

          write(sentinel, "[{\"resource\": \"c\", \"count\": 23}]");
          await("Sentinel's new content applied", () -> count(context, "a") == 10);
          settled(sources);
          assertThat(count(context, "c")).isEqualTo(23);

          sources.write("c", Set.of(RuleKind.FLOW), RuleSet.empty());
          assertThat(count(context, "c")).as("an endpoint write of [] removes the kind over every source").isEqualTo(-1);
        });
  }

  @Test
  void rulesTheApplicationGaveTheEngineItselfStayForKindsNoSourceGives() {
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class))
        .withBean(dev.weir.spring.autoconfigure.WeirBuilderCustomizer.class,
            () -> builder -> builder.rules(RuleSet.of(FlowRule.qps("own", 3), FlowRule.qps("mixed", 4))))
        .withPropertyValues("weir.degrade[0].resource=mixed", "weir.degrade[0].strategy=error-count",
            "weir.degrade[0].threshold=2")
        .run(context -> {
          assertThat(count(context, "own")).isEqualTo(3);
          assertThat(count(context, "mixed")).as("application.yml gives only mixed's degrade rules").isEqualTo(4);
          assertThat(context.getBean(Weir.class).rules().rules("mixed").degrade()).hasSize(1);
        });
  }
}
