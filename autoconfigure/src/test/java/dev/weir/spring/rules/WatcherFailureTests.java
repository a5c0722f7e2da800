package dev.weir.spring.rules;

import static dev.weir.spring.rules.Eventually.await;
import static dev.weir.spring.rules.Eventually.settled;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weir.KeyExpressions;
import dev.weir.Weir;
import dev.weir.rule.FlowRule;
import dev.weir.rule.ParamFlowRule;
import dev.weir.spring.actuate.WeirHealthIndicator;
import dev.weir.spring.autoconfigure.InvalidWeirConfigurationException;
import dev.weir.spring.autoconfigure.WeirAutoConfiguration;
import dev.weir.spring.autoconfigure.WeirBuilderCustomizer;
import dev.weir.spring.autoconfigure.actuate.WeirHealthContributorAutoConfiguration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * The watcher of the rule files survives whatever checking a file throws, errors included: the
 * file is refused, shown in the {@code weir} health details and logged, and the next valid edit is
 * applied. Before, it caught only {@code RuntimeException}, and one {@code StackOverflowError} ended
 * its thread: every later edit was ignored until a restart.
 *
 * <p>The errors come by real paths: a key expression compiler that throws {@code StackOverflowError}
 * for one key (an application may install its own through a {@link WeirBuilderCustomizer}, and a
 * deep expression overflowed the stack of the SpEL parser), and a YAML alias that contains itself
 * (Spring Boot's YAML loader recursed on it without end).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@ExtendWith(OutputCaptureExtension.class)
class WatcherFailureTests {

  /** The key that makes {@link #OVERFLOWING} throw. */
  static final String BOOM = "#boom";

  /** Compiles any key to the call's first argument, but throws {@code StackOverflowError} for {@link #BOOM}. */
  static final KeyExpressions OVERFLOWING = (resource, expression) -> {
    if (expression.equals(BOOM)) {
      throw new StackOverflowError();
    }
    return args -> args.length > 0 ? args[0] : null;
  };

  @TempDir
  Path dir;

  private ApplicationContextRunner runner(Path file) {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WeirAutoConfiguration.class,
            WeirHealthContributorAutoConfiguration.class))
        .withBean("overflowingKeys", WeirBuilderCustomizer.class, () -> builder -> builder.keyExpressions(OVERFLOWING))
        .withPropertyValues("weir.rules.file=" + file);
  }

  private static void write(Path file, String content) throws IOException {
    Path temp = Files.createTempFile(file.getParent(), ".edit", ".tmp");
    Files.writeString(temp, content);
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
  }

  private static double count(AssertableApplicationContext context, String resource) {
    List<FlowRule> flow = context.getBean(Weir.class).rules().rules(resource).flow();
    return flow.isEmpty() ? -1 : flow.get(0).count();
  }

  @SuppressWarnings("unchecked")
  private static String health(AssertableApplicationContext context, Path file) {
    Map<String, Object> details = context.getBean(WeirHealthIndicator.class).health().getDetails();
    return ((Map<String, String>) details.get("ruleSources")).get("file:" + file.toAbsolutePath());
  }

  static String keyed(String key) {
    return "param-flow:\n  - resource: search\n    key: \"" + key + "\"\n    count: 5\n";
  }

  @Test
  void aKeyWhoseCompilerOverflowsTheStackIsRefusedAndTheNextEditApplied(CapturedOutput output) throws IOException {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, "flow:\n  - resource: a\n    count: 2\n");
    runner(file).run(context -> {
      assertThat(count(context, "a")).isEqualTo(2);
      write(file, keyed(BOOM));
      await("the file refused", () -> health(context, file).startsWith("invalid"));
      assertThat(health(context, file)).contains("param-flow[0]");
      assertThat(output).contains("Rules from file:" + file.toAbsolutePath() + " refused");
      assertThat(context.getBean(Weir.class).rules().rules("search").paramFlow()).isEmpty();
      assertThat(context.getBean(RuleSources.class).watching()).as("the watcher lives").isTrue();

      write(file, keyed("#p0") + "flow:\n  - resource: a\n    count: 3\n");
      await("the next valid edit applied", () -> count(context, "a") == 3);
      settled(context.getBean(RuleSources.class)); // search, and then the status, follow in the same check
      assertThat(context.getBean(Weir.class).rules().rules("search").paramFlow()).singleElement()
          .extracting(ParamFlowRule::key).isEqualTo("#p0");
      assertThat(health(context, file)).isEqualTo("ok");
    });
  }

  @Test
  void anAliasThatContainsItselfIsRefusedAndTheNextEditApplied() throws IOException {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, "flow:\n  - resource: a\n    count: 2\n");
    runner(file).run(context -> {
      write(file, "flow: &loop\n  - resource: a\n    count: 1\n    limit-app: *loop\n");
      await("the file refused", () -> health(context, file).startsWith("invalid"));
      assertThat(health(context, file)).contains("contains itself");
      write(file, "flow:\n  - resource: a\n    count: 4\n");
      await("the next valid edit applied", () -> count(context, "a") == 4);
    });
  }

  @Test
  void aKeyWhoseCompilerOverflowsTheStackAtStartStopsTheStartNamingTheRule() throws IOException {
    Path file = dir.resolve("rules.yml");
    Files.writeString(file, keyed(BOOM));
    runner(file).run(context -> assertThat(context.getStartupFailure()).rootCause()
        .isInstanceOf(InvalidWeirConfigurationException.class)
        .hasMessageContaining("file:" + file.toAbsolutePath() + ":")
        .hasMessageContaining("param-flow[0]"));
  }

  /**
   * The watcher's thread itself, with a check that throws errors: it goes on, and checks again on
   * the next event. An {@code OutOfMemoryError} too: a watcher that ended would ignore every later
   * edit, silently, while one that goes on costs nothing (docs/rule-sources.md says why).
   */
  @Test
  void theWatcherThreadSurvivesAnyThrowableOfACheck() throws Exception {
    AtomicInteger checks = new AtomicInteger();
    LinkedBlockingQueue<Integer> done = new LinkedBlockingQueue<>();
    Runnable check = () -> {
      int n = checks.incrementAndGet();
      done.add(n);
      switch (n) {
        case 1 -> throw new StackOverflowError("deep");
        case 2 -> throw new OutOfMemoryError("for a test");
        case 3 -> throw new IllegalStateException("a bug");
        default -> {
          // a check that works
        }
      }
    };
    try (FileWatcher watcher = new FileWatcher(List.of(dir.resolve("rules.yml")), check)) {
      for (int event = 1; event <= 4; event++) {
        Files.writeString(dir.resolve("touched" + event), "x");
        assertThat(done.poll(10, TimeUnit.SECONDS)).as("check %s ran", event).isEqualTo(event);
        assertThat(watcher.isAlive()).isTrue();
      }
    }
  }
}
